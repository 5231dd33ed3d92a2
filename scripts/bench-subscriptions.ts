// `npm run bench:subscriptions`: how fast the job runner charges the EDU subscription's months.
//
// N customers (BENCH_SUBSCRIPTIONS, default 10 000) are inserted in bulk with SQL, each with a
// paid EDU order, a saved sandbox card (a setup that succeeded), and a subscription anchored one
// month before the bench's clock: month 1 paid, month 2 scheduled and due now. Then
// `services.jobs.runDue()` catches up, with the services' clock starting at the due instant: it
// charges every month 2 (a sandbox charge, the payment, the month's access, month 3 scheduled)
// and sends each receipt (a mail job, into the outbox). Printed: charges/s (receipts included)
// and the seconds the whole catch-up took, then SQL checks that every month 2 was paid exactly
// once (one payment per month, one sandbox charge per subscription, its receipt sent).
//   1. PostgreSQL, one instance;
//   2. PostgreSQL, two instances (two services over two pools) running runDue() at once;
//   3. an in-memory PGlite, one instance (BENCH_SUBSCRIPTIONS_PGLITE, default BENCH_SUBSCRIPTIONS).
// On PostgreSQL each run has a database of its own (portal_bench_subs_<random>_<run>) on the
// server of DATABASE_URL, dropped at the end. Exits 1 when a check fails.
//
// Environment:
//   DATABASE_URL                 a PostgreSQL server (any database on it): required
//   BENCH_SUBSCRIPTIONS          subscriptions due at once (default 10000)
//   BENCH_SUBSCRIPTIONS_PGLITE   the same on PGlite (default BENCH_SUBSCRIPTIONS; 0 skips PGlite)
import { randomBytes } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import pg from "pg";
import { loadConfig } from "#server/config.ts";
import { openDatabase, type Database, type DatabaseHandle } from "#server/db/client.ts";
import { seedDatabase } from "#server/db/seed/index.ts";
import { createLogger } from "#server/logger.ts";
import { createServices } from "#server/services.ts";
import { periodStart } from "#shared/subscription.ts";
import { seedSubscriptions } from "./bench/subscription-seed.ts";

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  console.error("usage: DATABASE_URL=postgres://… npm run bench:subscriptions  (BENCH_SUBSCRIPTIONS=10000)");
  process.exit(2);
}
const count = whole("BENCH_SUBSCRIPTIONS", 10_000, 1);
const pgliteCount = whole("BENCH_SUBSCRIPTIONS_PGLITE", count, 0);

function whole(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return value;
}

// Production settings with secrets of the run's own: the sandbox gateway, mail into the outbox.
const config = loadConfig({
  env: {
    NODE_ENV: "production",
    PAYMENTS: "sandbox",
    MAIL_DISABLED: "true",
    PUBLIC_ORIGIN: "https://portale.example.it",
    SESSION_SECRET: randomBytes(48).toString("base64url"),
    OIDC_CLIENT_SECRET: randomBytes(48).toString("base64url"),
    OIDC_COOKIE_KEYS: randomBytes(48).toString("base64url"),
    ACTIVATION_CODE_KEY: randomBytes(48).toString("base64url"),
  },
});

/** Drizzle's "Failed query: <sql>\nparams: <values>: <the database's error>" without its values. */
function reason(message: string): string {
  const params = message.indexOf("\nparams: ");
  const cause = params < 0 ? -1 : message.indexOf(": ", params + 9);
  return cause < 0 ? message : `${message.slice(0, Math.min(params, 60))}…: ${message.slice(cause + 2)}`;
}

/** Warnings and errors of the services, tallied by message for the report. */
const logged = new Map<string, number>();
const log = createLogger("warn", {
  write(line: string) {
    const entry = JSON.parse(line) as { level: number; msg: string; err?: { message?: string } };
    const key = `${entry.level >= 50 ? "error" : "warn"} "${entry.msg}"${entry.err?.message ? `: ${reason(entry.err.message)}` : ""}`;
    logged.set(key, (logged.get(key) ?? 0) + 1);
  },
});

// Month 2 of every subscription is due at `due`; the anchor is one month earlier.
const anchor = periodStart(new Date(), 0);
const due = periodStart(anchor, 2);
const monthThree = periodStart(anchor, 3);

/** Longer than a claimed month's lease (5 minutes, server/commerce/subscriptions.ts). */
const LEASE_RUN_OUT_MS = 10 * 60_000;

const rowsOf = async <T>(db: Database, query: SQL) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;

type Check = { label: string; value: number; want: number };

/** What the catch-up left, checked with SQL: every month 2 paid once, by one charge, with its receipt. */
async function verify(db: Database, n: number): Promise<{ checks: Check[]; chargedTwice: boolean }> {
  const [c] = await rowsOf<Record<string, number>>(
    db,
    sql`select
      (select count(*) from subscription_periods where number = 2 and status = 'paid')::int as paid,
      (select count(*) from payments p join subscription_periods sp on sp.id = p.subscription_period_id
        where sp.number = 2)::int as payments,
      (select count(*) from (select subscription_period_id from payments where subscription_period_id is not null
        group by 1 having count(*) > 1) x)::int as months_paid_twice,
      (select count(*) from sandbox_gateway_objects where kind = 'charge')::int as charges,
      (select count(distinct data->'metadata'->>'subscription_id') from sandbox_gateway_objects
        where kind = 'charge')::int as subscriptions_charged,
      (select count(*) from (select data->'metadata'->>'subscription_id' from sandbox_gateway_objects where kind = 'charge'
        group by 1 having count(*) > 1) x)::int as subscriptions_charged_twice,
      (select count(*) from payments p join sandbox_gateway_objects ch on ch.id = p.charge_id
        where ch.kind = 'charge' and ch.data->>'status' = 'succeeded'
          and ch.data->'metadata'->>'period_id' = p.subscription_period_id::text
          and (ch.data->>'amountCents')::int = p.amount_cents)::int as payments_matching_their_charge,
      (select count(*) from entitlements e join subscriptions s on s.user_id = e.user_id
        join subscription_periods sp on sp.subscription_id = s.id and sp.number = 2
        where e.starts_at = sp.starts_at and e.expires_at = sp.ends_at)::int as months_granted,
      (select count(*) from subscription_periods where number = 3 and status = 'scheduled')::int as next_months_scheduled,
      (select count(*) from jobs where key like 'subscription-mail:receipt:%' and status = 'done')::int as receipts_sent,
      (select count(*) from mail_outbox)::int as mails_in_outbox,
      (select count(*) from jobs where status <> 'done')::int as jobs_not_done,
      (select count(*) from subscription_periods where status = 'charging')::int as months_left_charging`,
  );
  const want: Record<string, number> = {
    paid: n,
    payments: n,
    months_paid_twice: 0,
    charges: n,
    subscriptions_charged: n,
    subscriptions_charged_twice: 0,
    payments_matching_their_charge: n,
    months_granted: n,
    next_months_scheduled: n,
    receipts_sent: n,
    mails_in_outbox: n,
    jobs_not_done: 0,
    months_left_charging: 0,
  };
  const checks = Object.entries(want).map(([label, w]) => ({ label: label.replaceAll("_", " "), value: c![label]!, want: w }));
  return { checks, chargedTwice: c!.months_paid_twice! > 0 || c!.subscriptions_charged_twice! > 0 || c!.charges! > n };
}

type Outcome = { label: string; n: number; seconds: number; seedSeconds: number; mails: number; stuck: number; ok: boolean };

/**
 * One run: the services of each instance over its own handle (the clock starts at the due
 * instant), every instance's runDue() at once, timed; then the checks.
 */
async function run(label: string, handles: DatabaseHandle[], n: number): Promise<Outcome> {
  const [first] = handles;
  console.log(`\n${label}: ${n} subscriptions due at ${due.toISOString()}`);
  await first!.migrate(first!.db);
  await seedDatabase(first!.db, config.links);
  const seeding = performance.now();
  await seedSubscriptions(first!.db, n, { anchor, due, monthThree });
  const seedSeconds = (performance.now() - seeding) / 1000;
  console.log(`  inserted in ${seedSeconds.toFixed(1)} s`);

  const started = Date.now();
  let skippedMs = 0;
  const now = () => new Date(due.getTime() + (Date.now() - started) + skippedMs);
  const services = await Promise.all(handles.map((database) => createServices({ config, database, log, now })));
  const t0 = performance.now();
  const done = await Promise.all(services.map((s) => s.jobs.runDue()));
  const seconds = (performance.now() - t0) / 1000;
  const charges = done.map((d) => d["subscription-charges"] ?? 0);
  let mails = done.reduce((sum, d) => sum + (d["subscription-mail"] ?? 0), 0);
  const split = handles.length > 1 ? ` (${charges.map((c, i) => `instance ${i + 1}: ${c}`).join(", ")})` : "";
  console.log(`  runDue(): ${charges.reduce((a, b) => a + b, 0)} months handled${split}, ${mails} receipts sent`);
  console.log(`  caught up in ${seconds.toFixed(1)} s: ${(n / seconds).toFixed(0)} charges/s (receipts included)`);

  // A month whose payment could not be written (the log below says why) stays claimed until its
  // lease runs out; a server's next tick after that finishes it from the charge already made.
  const [{ stuck } = { stuck: 0 }] = await rowsOf<{ stuck: number }>(
    first!.db,
    sql`select count(*)::int as stuck from subscription_periods where status = 'charging'`,
  );
  if (stuck > 0) {
    skippedMs += LEASE_RUN_OUT_MS;
    const again = await services[0]!.jobs.runDue();
    mails += again["subscription-mail"] ?? 0;
    console.log(
      `  ${stuck} month(s) left charging by an error; the tick after their lease ran out (clock +${LEASE_RUN_OUT_MS / 60_000} min) ` +
        `handled ${again["subscription-charges"] ?? 0} month(s) and ${again["subscription-mail"] ?? 0} receipt(s)`,
    );
  }
  for (const s of services) await s.close();

  const { checks, chargedTwice } = await verify(first!.db, n);
  const failed = checks.filter((c) => c.value !== c.want);
  for (const c of failed) console.log(`  FAIL ${c.label}: ${c.value}, expected ${c.want}`);
  if (failed.length === 0) console.log(`  every month 2 paid exactly once (${checks.length} checks)`);
  console.log(chargedTwice ? "  A MONTH WAS CHARGED TWICE" : "  no month charged twice");
  return { label, n, seconds, seedSeconds, mails, stuck, ok: failed.length === 0 && !chargedTwice };
}

/** A database of the run's own on the PostgreSQL server, dropped at the end. */
const benchDatabases: string[] = [];
const prefix = `portal_bench_subs_${randomBytes(4).toString("hex")}`;
async function withPostgres(label: string, instances: number, n: number): Promise<Outcome> {
  const name = `${prefix}_${benchDatabases.length + 1}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  benchDatabases.push(name);
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  const handles = await Promise.all(
    Array.from({ length: instances }, () => openDatabase({ url: url.toString(), poolMax: config.database.poolMax })),
  );
  try {
    return await run(label, handles, n);
  } finally {
    for (const handle of handles) await handle.close();
  }
}

async function dropDatabases() {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  for (const name of benchDatabases.splice(0)) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}

process.once("SIGINT", () => {
  console.error("\ninterrupted: dropping the bench databases");
  void dropDatabases().finally(() => process.exit(130));
});

const outcomes: Outcome[] = [];
let failure: string | undefined;
try {
  outcomes.push(await withPostgres("PostgreSQL, one instance", 1, count));
  outcomes.push(await withPostgres("PostgreSQL, two instances at once", 2, count));
  if (pgliteCount > 0) {
    const pglite = await openDatabase({ dataDir: undefined });
    try {
      outcomes.push(await run("PGlite (in memory), one instance", [pglite], pgliteCount));
    } finally {
      await pglite.close();
    }
  }
} catch (error) {
  failure = error instanceof Error ? (error.stack ?? error.message) : String(error);
} finally {
  await dropDatabases();
}

const head = ["run", "subscriptions", "charges/s", "catch-up s", "receipts", "left charging", "inserted in s", "checks"];
const rows = outcomes.map((o) => [
  o.label,
  String(o.n),
  (o.n / o.seconds).toFixed(0),
  o.seconds.toFixed(1),
  String(o.mails),
  String(o.stuck),
  o.seedSeconds.toFixed(1),
  o.ok ? "pass" : "FAIL",
]);
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
console.log(`\n${line(head)}\n${line(widths.map((w) => "-".repeat(w)))}`);
for (const row of rows) console.log(line(row));
if (logged.size > 0) {
  console.log("\nThe services logged (warn and above):");
  for (const [key, times] of logged) console.log(`  ${String(times).padStart(6)}×  ${key}`);
}
if (failure) console.log(`\nFAIL: ${failure}`);
process.exit(failure || outcomes.some((o) => !o.ok) ? 1 : 0);
