// Runs before the e2e server starts (playwright.config.ts): migrates and seeds its database as
// the server would, then adds what the browser tests need and a production install lacks —
// activation codes, the demo discount code, customers whose products are in every state of a
// dashboard card, and a pool of customers that tests claim one each instead of registering through
// the forms (customers.ts).
// What the tests must know (codes, e-mails) goes to $E2E_DATA_DIR/fixtures.json.
//   node tests/e2e/prepare-server.ts [other data folder…]
// also copies the prepared database and fixtures into each other folder given (the Stripe portal's).
import { cpSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { standardPasswords } from "#server/accounts/passwords.ts";
import { createProfiles } from "#server/accounts/profile.ts";
import { createAccountsService } from "#server/accounts/service.ts";
import { createReferenceData } from "#server/catalog/reference.ts";
import { insertCompletedOrder } from "#server/commerce/orders.ts";
import { loadConfig } from "#server/config.ts";
import { openDatabase, type Database } from "#server/db/client.ts";
import { prepareDatabase } from "#server/db/prepare.ts";
import { seedDemoCoupons } from "#server/db/seed/coupons.ts";
import { seedDatabase } from "#server/db/seed/index.ts";
import { ebookChapters, productTypes, products, professions, readingSessions, users } from "#server/db/schema/index.ts";
import { createActivation } from "#server/commerce/activation.ts";
import { addMonths, EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { grantEntitlement } from "#server/library/entitlements.ts";
import { createLogger } from "#server/logger.ts";
import { createInvoices } from "#server/invoices/service.ts";
import { createSdiInbox } from "#server/invoices/inbox.ts";
import { MAX_NOTIFICATION_BYTES } from "#server/invoices/sdi-messages.ts";
import { inboxFolder, outboxTransmitter } from "#server/invoices/transmitter.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { systemClock } from "#server/lib/clock.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { CLAIMS_FOLDER, E2E_PASSWORD, type E2eFixtures, type PoolKind } from "./fixtures.ts";
import { createPurchasesFixtures } from "./purchases-fixtures.ts";
import { createRefundsFixtures } from "./refunds-fixtures.ts";
import { createProvenanceFixtures } from "./provenance-fixtures.ts";
import { createUndeliveredInvoiceFixtures } from "./sdi-fixtures.ts";

const DAY = 24 * 3600_000;
/** How many customers of each kind the pool holds: more than the tests of all projects claim. */
const POOL_SIZES: Record<PoolKind, number> = { new: 40, student: 100, professional: 20 };

const config = loadConfig();
const database = await openDatabase({ dataDir: config.database.pgliteDir });
const { db } = database;
await prepareDatabase(database, config, createLogger("warn"));
// The server runs as production, which seeds no product and no discount code: the tests buy and
// read the demo catalogue's, and the checkout's test applies the demo code.
await seedDatabase(db, config.links);
await seedDemoCoupons(db);
const fixtures = await createFixtures(db);
writeFileSync(path.join(config.dataDir, "fixtures.json"), JSON.stringify(fixtures, null, 2));
rmSync(path.join(config.dataDir, CLAIMS_FOLDER), { recursive: true, force: true });
await database.close();
for (const other of process.argv.slice(2)) {
  cpSync(config.database.pgliteDir, path.join(other, "pglite"), { recursive: true });
  cpSync(path.join(config.dataDir, "fixtures.json"), path.join(other, "fixtures.json"));
}

async function createFixtures(db: Database): Promise<E2eFixtures> {
  const rateLimits = createRateLimits(db, { clearExpiredByTimeout: false });
  const activation = createActivation({ db, codeKey: config.secrets.activationCodeKey, rateLimits });

  const byType = async (code: string) =>
    db
      .select({ id: products.id, name: products.name, pubdate: products.pubdate })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(and(eq(productTypes.code, code), code === "ebook" ? isNull(products.masterProductId) : undefined))
      .orderBy(asc(products.sku));
  const [ebooks, paperBooks, courses, journals] = await Promise.all([
    byType("ebook"),
    byType("paper_flex"),
    byType("corso"),
    byType("rivista"),
  ]);
  const pick = <T>(list: T[], i: number) => {
    const item = list[i];
    if (!item) throw new Error("e2e fixtures: the seed has too few products");
    return item;
  };

  // Every test customer is new, so one multi-use code per kind serves every test; single-use
  // codes are for the "already used" cases.
  const multi = async (productId: string, kind: Parameters<typeof activation.createBatch>[0]["kind"]) =>
    (await activation.createBatch({ productId, kind, label: `e2e ${kind}`, count: 1, maxUses: 10_000 })).codes[0]!;
  const codes = {
    ebook: { code: await multi(pick(ebooks, 0).id, "ebook"), product: pick(ebooks, 0).name },
    paper: { code: await multi(pick(paperBooks, 1).id, "paper_digital"), product: pick(paperBooks, 1).name },
    course: { code: await multi(pick(courses, 0).id, "course"), product: pick(courses, 0).name },
    journal: { code: await multi(pick(journals, 0).id, "journal"), product: pick(journals, 0).name },
    ebookEdu: { code: await multi(pick(ebooks, 2).id, "ebook_edu"), product: pick(ebooks, 2).name },
    singleUse: (await activation.createBatch({ productId: pick(ebooks, 3).id, kind: "ebook", label: "e2e single", count: 40 }))
      .codes,
  };

  const accounts = createAccountsService(db);
  const professionIds = new Map((await db.select().from(professions)).map((p) => [p.code, p.id]));
  const [edu] = await db.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
  const now = new Date();

  async function customer(email: string, profession: string, grants: { productId: string; expiresAt: Date }[]) {
    const result = await accounts.register({ firstname: "Lucia", lastname: "Bianchi", email, password: E2E_PASSWORD });
    if (!result.ok) throw new Error(`e2e fixtures: cannot register ${email}`);
    const userId = result.user.id;
    await db
      .update(users)
      .set({ professionId: professionIds.get(profession)! })
      .where(eq(users.id, userId));
    await db.transaction(async (tx) => {
      const order = await insertCompletedOrder(tx, {
        userId,
        now,
        lines: grants.map((g) => ({ productId: g.productId, description: "Attivazione", totalCents: 0 })),
      });
      for (const g of grants) {
        const startsAt = g.expiresAt < now ? addMonths(g.expiresAt, -6) : now;
        await grantEntitlement(tx, { userId, source: "activation_code", startsAt, orderId: order.id, ...g }, now);
      }
    });
    return userId;
  }

  // A student with one book in each reading state, and a course.
  const started = pick(ebooks, 4);
  const expired = pick(ebooks, 5);
  // The newest paper book: the seed dates a few products within the last days ('Novità').
  const fresh = pick(
    [...paperBooks].sort((a, b) => (b.pubdate?.getTime() ?? 0) - (a.pubdate?.getTime() ?? 0)),
    0,
  );
  if (!fresh.pubdate || now.getTime() - fresh.pubdate.getTime() >= 7 * DAY) throw new Error("e2e fixtures: no recent paper book");
  const studentCourse = pick(courses, 1);
  const until = addMonths(now, 6);
  const studentId = await customer("e2e.studente@example.it", "student", [
    { productId: started.id, expiresAt: until },
    { productId: expired.id, expiresAt: new Date(now.getTime() - 3 * DAY) },
    { productId: fresh.id, expiresAt: until },
    { productId: studentCourse.id, expiresAt: until },
  ]);
  const [chapter] = await db
    .select()
    .from(ebookChapters)
    .where(and(eq(ebookChapters.productId, started.id), inArray(ebookChapters.position, [2])));
  await db.insert(readingSessions).values({ userId: studentId, productId: started.id, currentChapterId: chapter?.id ?? null });

  // A professor with EDU running and a journal; a professional with a course and a journal.
  const professorJournal = pick(journals, 1);
  await customer("e2e.docente@example.it", "professor", [
    { productId: professorJournal.id, expiresAt: until },
    { productId: edu!.id, expiresAt: until },
  ]);
  await customer("e2e.professionista@example.it", "other", [
    { productId: pick(courses, 2).id, expiresAt: until },
    { productId: pick(journals, 2).id, expiresAt: until },
  ]);

  return {
    codes,
    student: {
      email: "e2e.studente@example.it",
      started: { name: started.name, chapter: chapter?.title ?? "Contenuti aggiuntivi" },
      expired: expired.name,
      fresh: fresh.name,
      course: studentCourse.name,
    },
    professor: { email: "e2e.docente@example.it", journal: professorJournal.name },
    professional: { email: "e2e.professionista@example.it" },
    purchases: await createPurchasesFixtures(db, E2E_PASSWORD, invoiceIssuer(db).issue),
    undeliveredInvoice: await createUndeliveredInvoiceFixtures(db, E2E_PASSWORD, pick(ebooks, 10).id, invoiceIssuer(db)),
    refunds: await createRefundsFixtures(db, E2E_PASSWORD, invoiceIssuer(db).issueCreditNote),
    provenance: await createProvenanceFixtures(db, {
      password: E2E_PASSWORD,
      activation,
      codeBook: pick(ebooks, 8),
      boughtBook: pick(ebooks, 9),
      course: pick(courses, 5),
    }),
    pool: await createPool(db),
  };
}

/**
 * Issues an e-invoice, or a refund's credit note, now, as the server's job runner would (it sends
 * the file to SDI later); or issues an invoice and sends it, and applies SDI's notifications about it as the inbox reader would.
 */
function invoiceIssuer(db: Database) {
  const log = createLogger("warn");
  const runner = createJobRunner({ db, log });
  const transmitter = outboxTransmitter(config.invoicing.outboxDir);
  const invoices = createInvoices({ db, invoicing: config.invoicing, runner, transmitter, now: systemClock });
  const inbox = createSdiInbox({
    db,
    inbox: inboxFolder(config.invoicing.inboxDir, MAX_NOTIFICATION_BYTES),
    runner,
    log,
    now: systemClock,
  });
  return {
    issue: (paymentId: string) => invoices.issue(paymentId),
    issueCreditNote: (refundId: string) => invoices.issueCreditNote(refundId),
    async issueAndSend(paymentId: string) {
      const invoice = await invoices.issue(paymentId);
      if (!invoice) throw new Error("e2e fixtures: a payment got no invoice");
      await invoices.transmit(invoice.id);
      return invoice;
    },
    apply: inbox.apply,
  };
}

/**
 * Customers as registration makes them (Mario Rossi, the tests' password), and for `student` and
 * `professional` with the first access completed as the form's first choices complete it (the
 * first university and degree course; the first interest). One argon2id hash serves them all.
 */
async function createPool(db: Database): Promise<E2eFixtures["pool"]> {
  const passwordHash = await standardPasswords.hash(E2E_PASSWORD);
  const profiles = createProfiles(db);
  const reference = createReferenceData(db);
  const professionIds = new Map((await reference.professions({ firstAccess: true })).map((p) => [p.code, p.id]));
  const [university] = await reference.universities();
  const [degreeCourse] = await reference.degreeCourses(university?.id);
  const [interest] = await reference.interests({ firstAccess: true });
  if (!university || !degreeCourse || !interest) throw new Error("e2e fixtures: the seed has no university, course or interest");
  const firstAccess: Record<PoolKind, Parameters<typeof profiles.completeFirstAccess>[1] | null> = {
    new: null,
    student: { professionId: professionIds.get("student"), universityId: university.id, degreeCourseId: degreeCourse.id },
    professional: { professionId: professionIds.get("other"), interestIds: [interest.id] },
  };

  const pool = { new: [], student: [], professional: [] } as E2eFixtures["pool"];
  for (const kind of Object.keys(POOL_SIZES) as PoolKind[]) {
    const rows = Array.from({ length: POOL_SIZES[kind] }, (_, i) => ({
      email: `e2e.pool.${kind}.${i + 1}@example.it`,
      passwordHash,
      firstname: "Mario",
      lastname: "Rossi",
    }));
    const created = await db.insert(users).values(rows).returning({ id: users.id, email: users.email });
    for (const { id, email } of created) {
      const input = firstAccess[kind];
      if (input && !(await profiles.completeFirstAccess(id, input)).ok) throw new Error(`e2e fixtures: first access of ${email}`);
      pool[kind].push(email!);
    }
  }
  return pool;
}
