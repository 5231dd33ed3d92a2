// SDI's notifications read from the inbox by the job runner, over real services and a real
// database: RC delivered, MC not delivered (the receipt tells the customer where the invoice is),
// NS rejected with its errors; a notification read twice, or by two instances at once, applied
// once; a crash between the commit and the file's move; an unreadable file and one about a file
// not the portal's set aside, never lost; and what each invoice's state is.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import ReceiptPage, { loader as receiptLoaderBare } from "#app/routes/receipt.tsx";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import { invoices, invoiceTransmissions, payments, sdiNotifications } from "#server/db/schema/index.ts";
import { createSdiInbox } from "#server/invoices/inbox.ts";
import { MAX_NOTIFICATION_BYTES } from "#server/invoices/sdi-messages.ts";
import { inboxFolder, type SdiInbox } from "#server/invoices/transmitter.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger } from "#server/logger.ts";
import { createServices, type Services } from "#server/services.ts";
import type { CheckoutDetails } from "#server/commerce/checkout.ts";
import { PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";
import { checkoutDetails, COMPANY_BILLING, PERSON_BILLING } from "#tests/support/checkout.ts";
import { MINUTE, START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import {
  BUYER_ERRORS,
  deliveryReceipt,
  drop,
  nonDeliveryNotice,
  rejectionNotice,
  type NotificationFile,
} from "#tests/support/sdi-notifications.ts";
import { createTestServices } from "#tests/support/services.ts";

const EBOOK = "EB-9788828813217";
const receiptLoader = behindSignIn(receiptLoaderBare);

let database: TestDatabase;
let services: Services;
let clock = START;
let folder: string;
const inbox = () => path.join(folder, "sdi-inbox");
const inboxFiles = (sub = "") => (existsSync(path.join(inbox(), sub)) ? readdirSync(path.join(inbox(), sub)).sort() : []);
/** What the portal logged, one JSON object a line. */
let logged: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logged.push(
      ...chunk
        .toString()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    );
    done();
  },
});
const config = () => testConfig({ SDI_OUTBOX_DIR: path.join(folder, "sdi-outbox"), SDI_INBOX_DIR: inbox() });

beforeAll(async () => {
  database = await createTestDatabase();
  folder = mkdtempSync(path.join(tmpdir(), "portal-sdi-outcomes-"));
  services = await createTestServices(database, config(), { now: () => clock, log: createLogger("info", logStream) });
});
afterAll(async () => {
  await services?.close();
  await database?.destroy();
  rmSync(folder, { recursive: true, force: true });
});
beforeEach(() => {
  clock = START;
  logged = [];
});

let sdiIds = 4216513000;
/** SDI's number and message id for a file, new each time. */
const sdi = () => ({
  sdiId: String(++sdiIds),
  messageId: String(sdiIds).slice(-7),
  receivedAt: new Date(clock.getTime() + MINUTE),
});

/** A paid order that asked for an invoice, its invoice issued and handed to the outbox by the job runner. */
async function sentInvoice(billing = COMPANY_BILLING, details: Partial<CheckoutDetails> = {}) {
  const customer = await signedInCustomer(services, database.db);
  const opened = await services.checkout.open(customer.user.id, EBOOK);
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  const started = await services.payments.start(customer.user.id, opened.orderId, checkoutDetails({ billing, ...details }));
  if (!started.ok) throw new Error(`setup: ${started.reason}`);
  await services.sandbox!.confirmCard(started.setupId, "4242 4242 4242 4242");
  await services.payments.settleSetup(started.setupId);
  await services.jobs.runDue();
  const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, opened.orderId));
  const [invoice] = await database.db.select().from(invoices).where(eq(invoices.paymentId, payment!.id));
  if (!invoice?.transmittedAt) throw new Error("setup: the invoice was not sent");
  return { customer, payment: payment!, invoice };
}

const statusOf = async (invoiceId: string) => (await services.sdiOutcomes.status(invoiceId))!;
const notificationsAbout = (fileName: string) =>
  database.db.select().from(sdiNotifications).where(eq(sdiNotifications.invoiceFileName, fileName));
/** Drops the files, then runs what is due, as every instance's runner does each minute. */
async function deliver(...files: NotificationFile[]) {
  for (const file of files) drop(inbox(), file);
  await services.jobs.runDue();
}

describe("reading SDI's notifications", () => {
  it("RC: the invoice is delivered; the notification kept, its file moved to done/", async () => {
    const { invoice } = await sentInvoice();
    expect((await statusOf(invoice.id)).state).toBe("sent");
    const ids = sdi();
    const rc = deliveryReceipt({
      invoiceFileName: invoice.fileName,
      ...ids,
      deliveredAt: new Date(clock.getTime() + 3 * MINUTE),
    });
    await deliver(rc);

    const status = await statusOf(invoice.id);
    expect(status.state).toBe("delivered");
    expect(status.files).toEqual([
      expect.objectContaining({
        fileName: invoice.fileName,
        sentAt: START,
        sdiId: ids.sdiId,
        outcome: "delivered",
        outcomeAt: new Date(clock.getTime() + 3 * MINUTE),
        errors: null,
        notifications: [{ type: "RC", fileName: rc.fileName, status: "applied", readAt: START }],
      }),
    ]);
    const [kept] = await notificationsAbout(invoice.fileName);
    expect(kept).toMatchObject({ sdiId: ids.sdiId, messageId: ids.messageId, xml: rc.xml, receivedAt: ids.receivedAt });
    expect(inboxFiles()).not.toContain(rc.fileName);
    expect(readFileSync(path.join(inbox(), "done", rc.fileName), "utf8")).toBe(rc.xml);
    expect((await services.sdiOutcomes.list({ state: "delivered" })).map((i) => i.fileName)).toContain(invoice.fileName);
  });

  it("MC: not delivered; the receipt tells the customer the invoice is in their tax drawer", async () => {
    const { invoice, customer } = await sentInvoice(PERSON_BILLING);
    const other = await sentInvoice(PERSON_BILLING);
    const receiptOf = async (who: typeof customer, orderCode: string) => {
      const url = `/ricevuta/${orderCode}/`;
      const data = await receiptLoader({
        ...loaderArgs(services, url, { ordercode: orderCode }),
        request: new Request(new URL(url, "http://localhost:3000"), { headers: { cookie: who.cookie } }),
      });
      return { data, html: decode(await render(ReceiptPage, data, url)) };
    };

    await deliver(nonDeliveryNotice({ invoiceFileName: invoice.fileName, ...sdi(), description: "Casella PEC piena" }));
    expect((await statusOf(invoice.id)).state).toBe("not_delivered");
    const orderCode = (await services.sdiOutcomes.status(invoice.id))!.orderCode;
    const mine = await receiptOf(customer, orderCode);
    expect(mine.data.receipt.payments[0]!.invoiceNotDelivered).toBe(true);
    expect(mine.html).toContain(M.invoiceNotDelivered);
    expect(mine.html).toContain(M.downloadInvoice);
    // An invoice SDI has said nothing of yet: no such line.
    const theirs = await receiptOf(other.customer, (await statusOf(other.invoice.id)).orderCode);
    expect(theirs.data.receipt.payments[0]!.invoiceNotDelivered).toBe(false);
    expect(theirs.html).not.toContain(M.invoiceNotDelivered);
  });

  it("NS: rejected, with SDI's two error codes and descriptions kept in order", async () => {
    const { invoice } = await sentInvoice();
    await deliver(rejectionNotice({ invoiceFileName: invoice.fileName, ...sdi(), errors: BUYER_ERRORS }));
    const status = await statusOf(invoice.id);
    expect(status.state).toBe("rejected");
    expect(status.files[0]).toMatchObject({ outcome: "rejected", errors: BUYER_ERRORS });
    expect(status.lastResendDay).toBe("2026-11-28");
    const rejected = await services.sdiOutcomes.list({ state: "rejected" });
    expect(rejected.find((i) => i.fileName === invoice.fileName)).toMatchObject({ state: "rejected", errors: BUYER_ERRORS });
  });

  it("a duplicate: the same notification again, or under another name, is applied once and kept", async () => {
    const { invoice } = await sentInvoice();
    const ids = sdi();
    const rc = deliveryReceipt({ invoiceFileName: invoice.fileName, ...ids, deliveredAt: ids.receivedAt });
    await deliver(rc);
    const delivered = await statusOf(invoice.id);
    clock = new Date(START.getTime() + 10 * MINUTE);
    // The intermediary drops it again, and once more as RC_002.
    await deliver(rc, { ...rc, fileName: rc.fileName.replace("_RC_001", "_RC_002") });

    expect(await notificationsAbout(invoice.fileName)).toHaveLength(1);
    const status = await statusOf(invoice.id);
    expect(status).toEqual(delivered);
    expect(inboxFiles("done").filter((f) => f.startsWith(invoice.fileName.replace(".xml", "")))).toEqual([
      rc.fileName,
      `${rc.fileName}.1`,
      rc.fileName.replace("_RC_001", "_RC_002"),
    ]);
  });

  it("a notification that contradicts the file's outcome (an NS after its RC) is kept and logged, not applied", async () => {
    const { invoice } = await sentInvoice();
    const ids = sdi();
    await deliver(deliveryReceipt({ invoiceFileName: invoice.fileName, ...ids, deliveredAt: ids.receivedAt }));
    await deliver(rejectionNotice({ invoiceFileName: invoice.fileName, ...ids, messageId: "9999999", errors: BUYER_ERRORS }));
    expect((await statusOf(invoice.id)).state).toBe("delivered");
    expect((await notificationsAbout(invoice.fileName)).map((n) => [n.type, n.status]).sort()).toEqual([
      ["NS", "stale"],
      ["RC", "applied"],
    ]);
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, result: "stale", type: "NS" }));
  });

  it("an MC then an RC: delivered after all", async () => {
    const { invoice } = await sentInvoice();
    const ids = sdi();
    await deliver(nonDeliveryNotice({ invoiceFileName: invoice.fileName, ...ids }));
    await deliver(
      deliveryReceipt({ invoiceFileName: invoice.fileName, ...ids, messageId: "8888888", progressive: 2, deliveredAt: clock }),
    );
    expect((await statusOf(invoice.id)).state).toBe("delivered");
  });

  it("a malformed file is set aside in rejected/ and logged; the others beside it are read; nothing changes", async () => {
    const { invoice } = await sentInvoice();
    const other = await sentInvoice();
    const broken = rejectionNotice({ invoiceFileName: invoice.fileName, ...sdi(), errors: BUYER_ERRORS });
    const truncated = { ...broken, xml: broken.xml.slice(0, 400) };
    const ids = sdi();
    await deliver(truncated, deliveryReceipt({ invoiceFileName: other.invoice.fileName, ...ids, deliveredAt: clock }));

    expect((await statusOf(invoice.id)).state).toBe("sent");
    expect(await notificationsAbout(invoice.fileName)).toEqual([]);
    expect((await statusOf(other.invoice.id)).state).toBe("delivered");
    expect(inboxFiles()).not.toContain(truncated.fileName);
    expect(readFileSync(path.join(inbox(), "rejected", truncated.fileName), "utf8")).toBe(truncated.xml);
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 50, file: truncated.fileName, msg: "an SDI inbox file is unreadable: set aside" }),
    );
  });

  it("a notification about a file that is not the portal's is kept in unknown/, recorded and logged", async () => {
    const stranger = deliveryReceipt({ invoiceFileName: "IT06363391001_ZZZZZ.xml", ...sdi(), deliveredAt: clock });
    await deliver(stranger);
    expect(readFileSync(path.join(inbox(), "unknown", stranger.fileName), "utf8")).toBe(stranger.xml);
    expect(await notificationsAbout("IT06363391001_ZZZZZ.xml")).toEqual([
      expect.objectContaining({ status: "unknown_file", transmissionId: null }),
    ]);
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, file: stranger.fileName, result: "unknown_file" }));
  });

  it("reads a file the instance that sent it died before recording: SDI has it, so it was sent", async () => {
    const { invoice } = await sentInvoice();
    await database.db.update(invoices).set({ transmittedAt: null }).where(eq(invoices.id, invoice.id));
    await database.db.delete(invoiceTransmissions).where(eq(invoiceTransmissions.invoiceId, invoice.id));
    clock = new Date(START.getTime() + 5 * MINUTE);
    const ids = sdi();
    await deliver(deliveryReceipt({ invoiceFileName: invoice.fileName, ...ids, deliveredAt: clock }));
    const status = await statusOf(invoice.id);
    expect(status).toMatchObject({ state: "delivered", transmittedAt: clock });
    expect(status.files).toEqual([expect.objectContaining({ fileName: invoice.fileName, outcome: "delivered" })]);
  });
});

describe("once, whatever happens", () => {
  it("a crash after the commit, before the file left the inbox: read again, found applied, moved", async () => {
    const { invoice } = await sentInvoice();
    // An instance whose inbox dies when moving the file out.
    const real = inboxFolder(inbox(), MAX_NOTIFICATION_BYTES);
    let crash = true;
    const crashing: SdiInbox = {
      ...real,
      async done(name) {
        if (crash) throw new Error("the instance stopped here");
        return real.done(name);
      },
    };
    const runner = createJobRunner({ db: database.db, log: createLogger("silent"), now: () => clock });
    createSdiInbox({ db: database.db, inbox: crashing, runner, log: createLogger("silent"), now: () => clock });
    const ns = rejectionNotice({ invoiceFileName: invoice.fileName, ...sdi(), errors: BUYER_ERRORS });
    drop(inbox(), ns);
    await runner.runDue();
    expect((await statusOf(invoice.id)).state).toBe("rejected");
    expect(inboxFiles()).toContain(ns.fileName);

    crash = false;
    clock = new Date(START.getTime() + 2 * MINUTE);
    await runner.runDue();
    expect(inboxFiles()).not.toContain(ns.fileName);
    expect(inboxFiles("done")).toContain(ns.fileName);
    expect(await notificationsAbout(invoice.fileName)).toHaveLength(1);
    expect((await statusOf(invoice.id)).files[0]!.errors).toEqual(BUYER_ERRORS);
  });

  describe("two instances reading the same folder at once", () => {
    let otherPool: DatabaseHandle | undefined;
    let other: Services;
    beforeAll(async () => {
      // On PostgreSQL the other instance has its own pool; PGlite is one process's.
      if (database.connection) otherPool = await openDatabase({ ...database.connection, poolMax: 5 });
      other = await createServices({
        config: config(),
        database: otherPool ?? database,
        log: createLogger("silent"),
        now: () => clock,
      });
    });
    afterAll(async () => {
      await other?.close();
      await otherPool?.close();
    });

    it("apply each notification once", async () => {
      const sent = [];
      for (let i = 0; i < 6; i++) sent.push(await sentInvoice());
      const files = sent.map(({ invoice }, i) => {
        const ids = sdi();
        const about = { invoiceFileName: invoice.fileName, ...ids };
        return i % 3 === 0
          ? deliveryReceipt({ ...about, deliveredAt: clock })
          : i % 3 === 1
            ? nonDeliveryNotice(about)
            : rejectionNotice({ ...about, errors: BUYER_ERRORS });
      });
      for (const file of files) drop(inbox(), file);
      for (let round = 0; round < 3; round++) await Promise.all([services.jobs.runDue(), other.jobs.runDue()]);

      const states = await Promise.all(sent.map(({ invoice }) => statusOf(invoice.id)));
      expect(states.map((s) => s.state)).toEqual([
        "delivered",
        "not_delivered",
        "rejected",
        "delivered",
        "not_delivered",
        "rejected",
      ]);
      for (const { invoice } of sent) expect(await notificationsAbout(invoice.fileName)).toHaveLength(1);
      for (const file of files) {
        expect(inboxFiles("done").filter((name) => name.startsWith(file.fileName))).toEqual([file.fileName]);
        expect(inboxFiles()).not.toContain(file.fileName);
      }
    });
  });
});
