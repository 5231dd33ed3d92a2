// `npm run admin` as an operator runs it: a child process over the test's database (a PGlite
// folder, or the PostgreSQL database of this run). Few and slow on purpose: what the commands do is
// tested in server/operators/; here, the command line itself — the --yes rule, the CSV, the exit
// codes and a user's mistake told without a stack trace — and what the invoices' and orders'
// commands print of a credit note.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, invoices, orders, payments, products, users } from "#server/db/schema/index.ts";
import { createActivation } from "#server/commerce/activation.ts";
import { createLogger } from "#server/logger.ts";
import { refundOrder } from "#server/operators/orders.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { checkoutDetails, COMPANY_BILLING } from "#tests/support/checkout.ts";
import { DAY, START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import type { TestDatabase } from "#tests/support/database.ts";
import { createTestServices } from "#tests/support/services.ts";
import { createSharedDatabase } from "#tests/support/shared-database.ts";
import type { NodeRun } from "#tests/support/run-node.ts";
import { runAdmin } from "#tests/support/admin-cli.ts";

const config = testConfig();
let shared: Awaited<ReturnType<typeof createSharedDatabase>>;
/** The commands' working folder: where the CSV goes. */
let folder: string;

beforeAll(async () => {
  shared = await createSharedDatabase("portal-admin-");
  folder = mkdtempSync(path.join(tmpdir(), "portal-admin-out-"));
});
afterAll(async () => {
  await shared?.destroy();
  rmSync(folder, { recursive: true, force: true });
});

/**
 * How long one run of the script may take: it loads the portal's modules and opens the database,
 * 3 to 5 s on an idle machine, up to 30 s seen under CI with other work beside it.
 */
const RUN_MS = 60_000;

/** Runs the command in production, as an operator on the server would, with the test's secrets. */
function admin(args: string[], settings: NodeJS.ProcessEnv = {}): Promise<NodeRun> {
  return runAdmin(args, folder, { ...shared.env, ...settings });
}

describe("npm run admin", { timeout: 2 * RUN_MS }, () => {
  it("in production does nothing without --yes, not even read", async () => {
    const run = await admin(["codes:batches"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--yes");
    expect(run.stdout).toBe("");
    const listed = await shared.withDatabase((d) => d.db.select().from(auditLog).where(eq(auditLog.event, "codes_listed")));
    expect(listed).toHaveLength(0);
  });

  it("with --yes writes the batch's CSV, whose codes activate; the audit log names the operator", async () => {
    const print = ["codes:create", "--product", "EB-9788828813217", "--kind", "ebook", "--count", "3", "--out", "stampa.csv"];
    const run = await admin([...print, "--actor", "mrossi", "--yes"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(path.join(folder, "stampa.csv"));
    const [header, ...codes] = readFileSync(path.join(folder, "stampa.csv"), "utf8").trimEnd().split("\n");
    expect(header).toBe("code");
    expect(codes).toHaveLength(3);
    // Never printed in the report: the file is the only copy.
    for (const code of codes) expect(run.stdout).not.toContain(code);

    await shared.withDatabase(async ({ db }) => {
      const [entry] = await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.event, "codes_created"), eq(auditLog.actor, "operator:mrossi")));
      expect(entry!.details).toMatchObject({ product: "EB-9788828813217", kind: "ebook", count: 3 });
      const [customer] = await db.insert(users).values({ email: "lettrice@example.it" }).returning({ id: users.id });
      const rateLimits = createRateLimits(db, { clearExpiredByTimeout: false });
      const activation = createActivation({ db, codeKey: config.secrets.activationCodeKey, rateLimits });
      for (const code of codes)
        expect((await activation.activate({ userId: customer!.id, ip: "203.0.113.7", code })).ok).toBe(true);
      rateLimits.close();
    });

    // Writing over the printer's file is refused before any batch is made.
    const again = await admin([...print, "--yes"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/stampa\.csv exists already/);
    expect(again.stderr).not.toMatch(/\n\s+at /);
    const created = await shared.withDatabase((d) => d.db.select().from(auditLog).where(eq(auditLog.event, "codes_created")));
    expect(created).toHaveLength(1);
  });

  it(
    "refuses, in one line naming it, an ACTIVATION_CODE_KEY other than the database's",
    async () => {
      expect((await admin(["codes:batches", "--yes"])).code).toBe(0); // the database learns its key
      const run = await admin(["codes:batches", "--yes"], {
        ACTIVATION_CODE_KEY: "another-activation-code-key-long-enough-0123456789",
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(/^ACTIVATION_CODE_KEY is not the key this database was written with/),
      ]);
    },
    3 * RUN_MS,
  ); // two runs of the script

  it(
    "catalogue:import reads the file it names: a dry run writes nothing, a bad row is told by its line",
    async () => {
      const example = path.resolve(import.meta.dirname, "../../deploy/catalogue-example.csv");
      const dry = await admin(["catalogue:import", example, "--dry-run", "--yes"]);
      expect(dry.stderr).toBe("");
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/^Dry run, nothing written: 6 row\(s\): \d+ product\(s\) would be created/);
      const one = path.join(folder, "nuovo.csv");
      writeFileSync(one, "sku;type;name;price_cents\nEB-NUOVO-1;ebook;Un eBook nuovo;990\n");
      const run = await admin(["catalogue:import", "nuovo.csv", "--yes"]);
      expect(run.stdout).toContain("1 product(s) were created");
      expect(run.stdout).toContain("  + EB-NUOVO-1");
      writeFileSync(one, "sku;type;name;price_cents\nEB-NUOVO-1;ebook;Un eBook nuovo;9,90\n");
      const bad = await admin(["catalogue:import", "nuovo.csv", "--yes"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("line 2: price_cents must be a whole number");
      expect(bad.stderr).not.toContain("    at "); // no stack trace
      const [product] = await shared.withDatabase((d) => d.db.select().from(products).where(eq(products.sku, "EB-NUOVO-1")));
      expect(product!.priceCents).toBe(990);
    },
    4 * RUN_MS,
  ); // three runs of the script, each opening the database

  it("invoices:export needs its month, and writes the month's invoices into the folder it names", async () => {
    const missing = await admin(["invoices:export", "--yes"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--month is needed");

    const run = await admin(["invoices:export", "--month", "2026-11", "--out", "fatture", "--yes"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^0 invoice\(s\), 0,00\s€, and 0 credit note\(s\), 0,00\s€ given back, of 2026-11 in /m);
    expect(run.stdout).toContain(`of 2026-11 in ${path.join(folder, "fatture")}.`);
    const [entry] = await shared.withDatabase((d) => d.db.select().from(auditLog).where(eq(auditLog.event, "invoices_exported")));
    expect(entry).toMatchObject({
      actor: expect.stringMatching(/^operator:/),
      details: { month: "2026-11", count: 0, numbers: [] },
    });
  });
  it(
    "orders:refund reads its options: a line is whole, an amount has a decimal comma; orders:refunds names a state",
    async () => {
      const both = await admin(["orders:refund", "NX261123-7K3M9Q", "--line", "EB-9788828813217", "--amount", "5", "--yes"]);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain("--line gives back a whole line");
      const dot = await admin(["orders:refund", "NX261123-7K3M9Q", "--amount", "12.50", "--yes"]);
      expect(dot.code).toBe(1);
      expect(dot.stderr.trim()).toBe('--amount is an amount in euros with a decimal comma (12,50), not "12.50"');
      const state = await admin(["orders:refunds", "--state", "lost", "--yes"]);
      expect(state.code).toBe(1);
      expect(state.stderr.trim()).toBe('--state is pending, succeeded or failed, not "lost"');
    },
    4 * RUN_MS,
  ); // three runs of the script, each opening the database

  it(
    "subscriptions:list and subscriptions:run-due print the subscriptions' months and what ran",
    async () => {
      const list = await admin(["subscriptions:list", "--yes"]);
      expect(list.stderr).toBe("");
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/^EDU subscriptions at .* \(Europe\/Rome\), (PostgreSQL|PGlite in .+)\n/);
      for (const heading of ["Months due now: ", "Subscriptions past due: ", "Months whose every try failed"])
        expect(list.stdout).toContain(heading);
      const run = await admin(["subscriptions:run-due", "--yes"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Ran what was due at /);
      expect(run.stdout).toMatch(/failed month\(s\) \(subscriptions:list\)\.\n$/);
      const entries = await shared.withDatabase((d) => d.db.select().from(auditLog).where(eq(auditLog.event, "due_work_run")));
      expect(entries).toMatchObject([{ actor: expect.stringMatching(/^operator:/) }]);
    },
    3 * RUN_MS,
  ); // two runs of the script

  it(
    "invoices:export, invoices:status, invoices:list and orders:show print a credit note with the invoice it corrects",
    async () => {
      // An invoiced eBook paid on 23 November 2026 and given back in part two days later, on the test's clock.
      const { orderCode, invoice, note } = await shared.withDatabase(async (database) => {
        let clock = START;
        const services = await createTestServices(database as TestDatabase, testConfig(), {
          now: () => clock,
          log: createLogger("silent"),
        });
        try {
          const registered = await services.accounts.register({
            firstname: "Maria",
            lastname: "Rossi",
            email: "nota.credito@example.it",
            password: "Segreta1!",
          });
          if (!registered.ok) throw new Error("setup: registration failed");
          const opened = await services.checkout.open(registered.user.id, "EB-9788828813217");
          if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
          const started = await services.payments.start(
            registered.user.id,
            opened.orderId,
            checkoutDetails({ billing: COMPANY_BILLING }),
          );
          if (!started.ok) throw new Error(`setup: ${started.reason}`);
          await services.sandbox!.confirmCard(started.setupId, "4242 4242 4242 4242");
          await services.payments.settleSetup(started.setupId);
          await services.jobs.runDue();
          const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, opened.orderId));
          const [paid] = await database.db.select().from(invoices).where(eq(invoices.paymentId, payment!.id));
          clock = new Date(START.getTime() + 2 * DAY);
          const op = { db: database.db, services, actor: "operator:test" };
          const [order] = await database.db.select().from(orders).where(eq(orders.id, opened.orderId));
          const refunded = await refundOrder(op, order!.orderCode, { kind: "amount", amountCents: 500, paymentCode: null });
          return { orderCode: order!.orderCode, invoice: paid!, note: refunded.refunds[0]!.creditNote! };
        } finally {
          await services.close();
        }
      });
      expect(note.documentNumber).toMatch(/^NC\/\d+$/);

      const exported = await admin(["invoices:export", "--month", "2026-11", "--out", "fatture-nc", "--yes"]);
      expect(exported.code).toBe(0);
      expect(exported.stdout).toMatch(new RegExp(`^\\s+${invoice.documentNumber}\\s+TD01 invoice\\s+-\\s+23/11/2026`, "m"));
      expect(exported.stdout).toMatch(
        new RegExp(`^\\s+${note.documentNumber}\\s+TD04 credit note\\s+${invoice.documentNumber}\\s+25/11/2026\\s+5,00`, "m"),
      );
      expect(exported.stdout).toMatch(/1 invoice\(s\), .*, and 1 credit note\(s\), 5,00\s€ given back, of 2026-11/);

      const status = await admin(["invoices:status", note.documentNumber, "--yes"]);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(
        `Credit note (TD04) ${note.documentNumber}, correcting ${invoice.documentNumber}, of 25/11/2026`,
      );

      const listed = await admin(["invoices:list", "--month", "2026-11", "--yes"]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(`^\\s+${note.documentNumber}\\s+TD04 credit note\\s+${invoice.documentNumber}\\s`, "m"),
      );

      const shown = await admin(["orders:show", orderCode, "--yes"]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(`${note.documentNumber} of 25/11/2026`);
    },
    5 * RUN_MS,
  ); // four runs of the script
});
