// `npm run load`: the portal under load and faults (docs/performance.md, "Load and faults").
//
// 1. Builds the portal if the build is missing or stale, starts a private PostgreSQL cluster
//    (scripts/load/postgres.ts: never the machine's shared server), two production instances on it
//    (scripts/load/instances.ts) and a small proxy in front of them (scripts/load/proxy.ts), whose
//    origin is the portal's PUBLIC_ORIGIN.
// 2. Prepares: activation codes made with the operators' command (npm run admin -- codes:create),
//    customers registered through the registration page (each signed in, first access done), and
//    EDU subscriptions inserted with SQL whose second month falls due at moments spread over the run.
// 3. Drives a mixed load of virtual customers for --duration (default 10 minutes) at --rate visits
//    a minute (default twice the peak, --peak, 120 visits a minute: docs/performance.md says where
//    that figure comes from). Visits arrive at random (Poisson); each goes to an idle customer:
//      dashboard 45 %   /dashboard/, /my-products/, /dashboard/
//      sign-in   20 %   a new browser: the whole sign-in through the identity provider, then the dashboard
//      activation 15 %  the activation modal and its form; a fifth of them a code entered by more
//                       customers at once than it has uses (2 for a single-use code, 4 for a 3-use one)
//      checkout  15 %   an eBook bought with the sandbox's good card, to 'Ordine confermato'
//      edu        5 %   the EDU subscription bought (customers without one); the run then moves its
//                       second month into the run (SQL), so the job runner charges it too
//    Meanwhile the job runners of both instances charge the months falling due, and five faults come,
//    a sixth of the run apart: instance 1 restarted (SIGTERM, then started again); PostgreSQL
//    restarted (pg_ctl restart -m fast), then a backup taken with the operators' command (npm run
//    admin -- backup: pg_dump) while the load goes on; instance 1 killed (SIGKILL) while a checkout's
//    POST is in flight at it, then started again; PostgreSQL crashed (pg_ctl stop -m immediate, then
//    start) while a checkout's POST is in flight; instance 2 restarted (SIGTERM).
// 4. Waits for the work under way to settle (months due, payments being taken; at most --settle),
//    then checks: no 5xx and no request cut, but a crash's own (a POST cut at the killed instance,
//    a POST answered 500 as PostgreSQL went away: counted apart with the customers they met); every
//    paid order charged once, for its total, with its access; no charge without a paid order; a
//    declined charge leaves nothing behind; no order waiting for a payment past its leases; after
//    each crash, its charges recorded within the leases' time; every month due paid once; no code
//    used beyond its uses; nothing a customer was told is done missing; every session the load
//    created still opens the dashboard, but for customers a crash met (counted).
// 5. The backup restored (npm run admin -- restore) into a new database of the cluster, a third
//    instance started on it, and the checks that hold at every moment run on it for what was
//    committed before the backup (scripts/load/restore-proof.ts).
// 6. Lighthouse (Debian's Chromium, mobile profile) on /, /edu/, /dashboard/ and a checkout page;
//    then the dashboard's latency at 50 connections (autocannon through the proxy).
// With --pgbouncer, the instances reach PostgreSQL through a private PgBouncer in transaction mode
// (scripts/pgbouncer.ts, the shipped configuration; DATABASE_POOLER=transaction, their start-up's
// migrations and lock on DATABASE_DIRECT_URL), which PostgreSQL's restart then sits behind. The
// run's own statements and the operators' commands (codes, backup, restore) go to PostgreSQL itself.
// Prints a report, writes it as JSON (--out, default ./load-report-<time>.json) and exits 1 when a
// check fails. Everything it started (cluster, instances, proxy, Chromium) is stopped at the end,
// on failure and on Ctrl-C too.
import { readFileSync, rmSync, writeFileSync, mkdtempSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Database } from "#server/db/client.ts";
import * as schema from "#server/db/schema/index.ts";
import { periodStart } from "#shared/subscription.ts";
import { openCheckout } from "./bench/checkout.ts";
import { quantile, table } from "./bench/figures.ts";
import { freePort, measuredProductionEnv, seedDemoCatalogue } from "./bench/server.ts";
import { seedSubscriptions } from "./bench/subscription-seed.ts";
import { buildIfStale } from "./build-if-stale.ts";
import { Recorder, type Sample } from "./load/client.ts";
import { createCustomers, newLedger, visit, VISIT_KINDS, type Customer, type VisitKind } from "./load/customers.ts";
import { Instance } from "./load/instances.ts";
import { crashRecoveryChecks, databaseChecks, ledgerChecks, pendingWork, SEED_TAG, type Check } from "./load/invariants.ts";
import { lighthousePages, type PageFigures } from "./load/lighthouse.ts";
import { startPrivatePostgres, type PrivatePostgres } from "./load/postgres.ts";
import { setRoleTimeouts, startPgbouncer, type PrivatePgbouncer } from "./pgbouncer.ts";
import { startProxy, type Proxy, type ProxyStats } from "./load/proxy.ts";
import { proveRestore, runAdminCommand, takeBackup, type MidRunBackup } from "./load/restore-proof.ts";

/** The busiest minute assumed (docs/performance.md, "Load and faults"): customer visits a minute. */
const PEAK_VISITS_PER_MINUTE = 120;
const MIX: Record<VisitKind, number> = { dashboard: 45, "sign-in": 20, activation: 15, checkout: 15, edu: 5 };
/** Share of activations that are a code entered by more customers at once than it has uses. */
const CONTESTED_SHARE = 0.2;
/** Uses of the shared codes' batch (the single-use batch is the printed books' usual). */
const MULTI_USE = 3;
/** The portal takes 10 card payments an hour per customer; the load stays below. */
const PAYMENTS_PER_CUSTOMER = 9;
const DASHBOARD_CONNECTIONS = 50;

const usage = `usage: npm run load -- [--duration 10m] [--rate <visits/min>] [--peak <visits/min>] [--customers N]
                     [--months N] [--settle 7m] [--dashboard-seconds 20] [--skip-lighthouse] [--pgbouncer]
                     [--out file.json]`;
const { values: options } = parseArgs({
  options: {
    duration: { type: "string", default: "10m" },
    rate: { type: "string" },
    peak: { type: "string", default: String(PEAK_VISITS_PER_MINUTE) },
    customers: { type: "string" },
    months: { type: "string" },
    settle: { type: "string", default: "7m" },
    "dashboard-seconds": { type: "string", default: "20" },
    "skip-lighthouse": { type: "boolean", default: false },
    pgbouncer: { type: "boolean", default: false },
    out: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (options.help) {
  console.log(usage);
  process.exit(0);
}

function millis(text: string, name: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) {
    console.error(`--${name}: "${text}" is not a duration (90s, 10m, 600)\n${usage}`);
    process.exit(2);
  }
  return Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "m" ? 60_000 : 1_000);
}
function positive(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`--${name} must be a positive number, got "${text}"\n${usage}`);
    process.exit(2);
  }
  return value;
}

const durationMs = millis(options.duration, "duration");
const peak = positive(options.peak, "peak", PEAK_VISITS_PER_MINUTE);
const rate = positive(options.rate, "rate", 2 * peak);
const visitsExpected = (rate * durationMs) / 60_000;
const customerCount = Math.round(
  positive(options.customers, "customers", Math.min(400, Math.max(40, Math.ceil(visitsExpected * (MIX.edu / 100) * 1.5) + 30))),
);
const monthCount = Math.round(positive(options.months, "months", Math.max(10, Math.round(durationMs / 1_000))));
const settleMs = millis(options.settle, "settle");
const dashboardSeconds = positive(options["dashboard-seconds"], "dashboard-seconds", 20);
const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);
const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
const outFile = path.resolve(options.out ?? `load-report-${stamp}.json`);

const failures: string[] = [];
const epoch = Date.now();
const recorder = new Recorder(epoch);
const ledger = newLedger();
const now = () => Date.now() - epoch;
const seconds = (ms: number) => (ms / 1000).toFixed(1);

// ── what runs, and its teardown ───────────────────────────────────────────────

let postgres: PrivatePostgres | undefined;
let pgbouncer: PrivatePgbouncer | undefined;
let instances: Instance[] = [];
let proxy: Proxy | undefined;
let database: pg.Pool | undefined;
let customers: Customer[] = [];
let scratch: string | undefined;
let tearingDown: Promise<void> | undefined;
/** The backup taken in the middle of the run, restored after it (scripts/load/restore-proof.ts). */
let midRunBackup: Promise<MidRunBackup | undefined> | undefined;

function teardown() {
  tearingDown ??= (async () => {
    for (const c of customers) c?.http.close();
    await proxy?.close().catch(() => undefined);
    await Promise.all(instances.map((i) => i.destroy()));
    await database?.end().catch(() => undefined);
    await pgbouncer?.stop().catch(() => undefined);
    postgres?.destroy();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  })();
  return tearingDown;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the instances, the proxy and the private PostgreSQL`);
    void teardown().finally(() => process.exit(130));
  });
}

/** A statement of the run's own, tried again while PostgreSQL restarts. */
async function withRetry<T>(work: () => Promise<T>, tries = 10): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (error) {
      if (i >= tries) throw error;
      console.log(`  (a statement of the run failed, tried again: ${error instanceof Error ? error.message : String(error)})`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
const rowsOf = async <T>(db: Database, query: ReturnType<typeof sql>) =>
  ((await db.execute(query)) as unknown as { rows: T[] }).rows;

// ── preparation ──────────────────────────────────────────────────────────────

/** A batch of codes made by the operators' command, read back from the CSV it writes. */
async function createCodes(env: NodeJS.ProcessEnv, sku: string, count: number, maxUses: number): Promise<string[]> {
  const file = path.join(scratch!, `codes-${maxUses}.csv`);
  await runAdminCommand(env, [
    "codes:create",
    "--product",
    sku,
    "--kind",
    "ebook",
    "--count",
    String(count),
    "--max-uses",
    String(maxUses),
    "--label",
    `load and faults ${stamp}`,
    "--out",
    file,
  ]);
  const codes = readFileSync(file, "utf8").trim().split("\n").slice(1);
  rmSync(file);
  return codes;
}

/** Subscriptions whose second month falls due at moments spread over the load (one batch per 10 s). */
async function seedMonths(db: Database, loadStart: number): Promise<number> {
  const batches = Math.max(1, Math.floor(durationMs / 10_000));
  let seeded = 0;
  for (let b = 0; b < batches; b++) {
    const n = Math.floor(monthCount / batches) + (b < monthCount % batches ? 1 : 0);
    if (n === 0) continue;
    const target = new Date(loadStart + ((b + 0.5) * durationMs) / batches);
    const anchor = periodStart(target, 0);
    const due = periodStart(anchor, 2);
    await seedSubscriptions(db, n, { anchor, due, monthThree: periodStart(anchor, 3) }, `${SEED_TAG}${b}`);
    seeded += n;
  }
  return seeded;
}

/**
 * An EDU subscription bought during the run has its second month a month away: this moves the
 * subscription one month back, its second month due at a random moment of what is left of the run
 * (the job runner then charges it as it would have). Not when less than 20 s are left.
 */
async function moveSecondMonthIntoRun(db: Database, email: string, loadEnd: number): Promise<boolean> {
  const earliest = Date.now() + 10_000;
  if (earliest > loadEnd - 10_000) return false;
  const target = new Date(earliest + Math.random() * (loadEnd - 10_000 - earliest));
  const anchor = periodStart(target, 0);
  const due = periodStart(anchor, 2);
  const next = periodStart(anchor, 3);
  const [a, d, e] = [anchor, due, next].map((t) => sql`${t.toISOString()}::timestamptz`);
  return withRetry(() =>
    db.transaction(async (tx) => {
      const [sub] = await rowsOf<{ id: string; order_id: string }>(
        tx as unknown as Database,
        sql`select s.id, s.order_id from subscriptions s join users u on u.id = s.user_id
          where u.email = ${email} and s.status = 'active' for update of s`,
      );
      if (!sub) return false;
      await tx.execute(sql`update subscriptions set anchor_at = ${a} where id = ${sub.id}`);
      await tx.execute(sql`update subscription_periods set starts_at = ${a}, ends_at = ${d}
        where subscription_id = ${sub.id} and number = 1`);
      const moved = await tx.execute(sql`update subscription_periods set starts_at = ${d}, ends_at = ${e}, next_attempt_at = ${d}
        where subscription_id = ${sub.id} and number = 2 and status = 'scheduled' and tries = 0`);
      if ((moved as unknown as { rowCount: number }).rowCount !== 1)
        throw new Error(`the second month of ${email} was not waiting`);
      await tx.execute(sql`update entitlements set starts_at = ${a}, expires_at = ${d}
        where order_id = ${sub.order_id} and source = 'subscription'`);
      return true;
    }),
  );
}

// ── the load ─────────────────────────────────────────────────────────────────

type Fault = {
  what: string;
  /**
   * `restart`: an instance's SIGTERM: its drain and the proxy's rules make every request's failure
   * impossible, so none is excused. `crash`: what ends connections under requests under way: SIGKILL
   * (a POST in flight at the instance is cut), and PostgreSQL going away, `pg_ctl stop -m immediate`
   * or `restart -m fast` alike (both end the sessions mid-transaction: a write under way may answer
   * 500, decision 020); those are counted apart, with the customers they met.
   */
  kind: "restart" | "crash";
  /** The instance's index (instance faults). */
  instance?: number;
  /** When it began (the signal sent, pg_ctl called), ms since the run's epoch. */
  at: number;
  /** SIGTERM or SIGKILL to exit (instances), or pg_ctl's whole time, down and up again (PostgreSQL). */
  stopMs: number;
  exit?: string;
  /** From start to /readyz 200 (instances). */
  startMs?: number;
  /** What the proxy had in flight at the instance (at both, for PostgreSQL) when it crashed. */
  killedInFlight?: string[];
  end: number;
};

function pick<T>(items: T[]): T | undefined {
  return items.length ? items[Math.floor(Math.random() * items.length)] : undefined;
}

function kindAt(): VisitKind {
  const total = VISIT_KINDS.reduce((sum, k) => sum + MIX[k], 0);
  let r = Math.random() * total;
  for (const k of VISIT_KINDS) if ((r -= MIX[k]) < 0) return k;
  return "dashboard";
}

async function drive(opts: {
  origin: string;
  products: string[];
  single: string[];
  multi: string[];
  loadEnd: number;
  db: Database;
}): Promise<{ started: number; skipped: Record<string, number>; moved: number; notMoved: number }> {
  const { origin, products, single, multi, loadEnd, db } = opts;
  const running = new Set<Promise<void>>();
  const skipped: Record<string, number> = {};
  let started = 0;
  let moved = 0;
  let notMoved = 0;
  const moving: Promise<void>[] = [];
  const ctx = {
    origin,
    ledger,
    recorder,
    products,
    onEduBought(email: string) {
      moving.push(
        moveSecondMonthIntoRun(db, email, loadEnd)
          .then((ok) => void (ok ? moved++ : notMoved++))
          .catch((error: unknown) => {
            notMoved++;
            failures.push(`moving the second month of ${email} into the run: ${String(error)}`);
          }),
      );
    },
  };
  const skip = (why: string) => (skipped[why] = (skipped[why] ?? 0) + 1);
  while (Date.now() < loadEnd) {
    // Poisson arrivals: exponential gaps around the mean.
    await new Promise((r) => setTimeout(r, (-Math.log(1 - Math.random()) * 60_000) / rate));
    if (Date.now() >= loadEnd) break;
    let kind = kindAt();
    const idle = customers.filter((c) => !c.busy);
    let group: Customer[] = [];
    let code: { code: string; contested: boolean } | undefined;
    if (kind === "edu") {
      const buyer = pick(idle.filter((c) => !c.hasEdu && c.payments < PAYMENTS_PER_CUSTOMER));
      if (!buyer)
        kind = "checkout"; // everyone has EDU: the visit buys an eBook instead
      else group = [buyer];
    }
    if (kind === "checkout") {
      const buyer = pick(idle.filter((c) => c.payments < PAYMENTS_PER_CUSTOMER));
      if (buyer) group = [buyer];
      else kind = "dashboard";
    }
    if (kind === "activation") {
      const contested = Math.random() < CONTESTED_SHARE;
      const useMulti = contested && Math.random() < 0.5 && multi.length > 0;
      const source = useMulti ? multi : single;
      const size = contested ? (useMulti ? MULTI_USE + 1 : 2) : 1;
      const shuffled = [...idle].sort(() => Math.random() - 0.5).slice(0, size);
      if (source.length === 0) {
        skip("no activation code left");
        kind = "dashboard";
      } else if (shuffled.length < size) {
        skip("not enough idle customers for a contested code");
        kind = "dashboard";
      } else {
        group = shuffled;
        code = { code: source.pop()!, contested };
      }
    }
    if (group.length === 0) {
      const c = pick(idle);
      if (!c) {
        skip("every customer busy");
        continue;
      }
      group = [c];
    }
    started++;
    const p = visit(kind, group, ctx, code).finally(() => running.delete(p));
    running.add(p);
  }
  await Promise.all(running);
  await Promise.all(moving);
  return { started, skipped, moved, notMoved };
}

/** The backup of the middle of the run (npm run admin -- backup), taken now; undefined when it failed (said among the failures). */
async function backUpNow(loadStart: number, env: NodeJS.ProcessEnv): Promise<MidRunBackup | undefined> {
  const log = (text: string) => console.log(`  [${seconds(now() - (loadStart - epoch))} s] backup: ${text}`);
  log("npm run admin -- backup (pg_dump) while the instances serve");
  try {
    const backup = await takeBackup(env, path.join(scratch!, "mid-run.dump"), ledger, now());
    log(backup.said);
    return backup;
  } catch (error) {
    failures.push(`the backup in the middle of the run: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** How long a crash waits for a card payment's POST in flight (then comes anyway). */
const CRASH_WAIT_MS = 30_000;
const CHECKOUT_POST = /^POST \/checkout\//;

/**
 * Until the proxy has a checkout's POST in flight at `instance`, or at any instance (the payment
 * being started, its card set up, charged and recorded: server/payments/service.ts), at most
 * CRASH_WAIT_MS; what is in flight there then.
 */
async function checkoutInFlight(instance?: number): Promise<string[]> {
  const giveUpAt = Date.now() + CRASH_WAIT_MS;
  for (;;) {
    const all = await proxy!.inFlight();
    const there = instance === undefined ? all.flat() : (all[instance] ?? []);
    if (there.some((r) => CHECKOUT_POST.test(r)) || Date.now() > giveUpAt) return there;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function injectFaults(loadStart: number, faults: Fault[], env: NodeJS.ProcessEnv) {
  const at = (share: number) => new Promise((r) => setTimeout(r, Math.max(0, loadStart + share * durationMs - Date.now())));
  const log = (text: string) => console.log(`  [${seconds(now() - (loadStart - epoch))} s] ${text}`);
  const instanceFault = async (instance: Instance, how: "SIGTERM" | "SIGKILL") => {
    const killedInFlight = how === "SIGKILL" ? await checkoutInFlight(instance.index) : undefined;
    const begin = now();
    log(
      `instance ${instance.index + 1}: ${how}${killedInFlight ? ` with ${killedInFlight.join(", ") || "nothing"} in flight` : ""}`,
    );
    const stop = how === "SIGKILL" ? await instance.kill() : await instance.stop();
    const startMs = await instance.start();
    faults.push({
      what: `instance ${instance.index + 1} ${how === "SIGKILL" ? "killed (SIGKILL)" : "restarted (SIGTERM)"}`,
      kind: how === "SIGKILL" ? "crash" : "restart",
      instance: instance.index,
      at: begin,
      stopMs: stop.ms,
      exit: stop.exit,
      startMs,
      killedInFlight,
      end: now(),
    });
    log(
      `instance ${instance.index + 1}: stopped in ${seconds(stop.ms)} s (${stop.exit}), ready again after ${seconds(startMs)} s`,
    );
  };
  const postgresFault = async (how: "restart" | "crash") => {
    const killedInFlight = how === "crash" ? await checkoutInFlight() : undefined;
    const begin = now();
    log(
      `PostgreSQL: ${how === "restart" ? "pg_ctl restart -m fast" : "pg_ctl stop -m immediate, then pg_ctl start"}` +
        (killedInFlight ? ` with ${killedInFlight.join(", ") || "nothing"} in flight` : ""),
    );
    const { downMs } = how === "restart" ? await postgres!.restart() : await postgres!.crash();
    faults.push({
      what: how === "restart" ? "PostgreSQL restarted (fast)" : "PostgreSQL crashed (immediate)",
      kind: "crash",
      at: begin,
      stopMs: downMs,
      killedInFlight,
      end: now(),
    });
    log(`PostgreSQL: accepting connections again after ${seconds(downMs)} s`);
  };
  // Spread over the run, a sixth apart, each instance and PostgreSQL both stopped and crashed.
  await at(1 / 6);
  await instanceFault(instances[0]!, "SIGTERM");
  await at(2 / 6);
  await postgresFault("restart");
  // Alongside what follows, so that it moves no fault: pg_dump minds no instance's restart.
  midRunBackup = backUpNow(loadStart, env);
  await at(3 / 6);
  await instanceFault(instances[0]!, "SIGKILL");
  await at(4 / 6);
  await postgresFault("crash");
  await at(5 / 6);
  await instanceFault(instances[1]!, "SIGTERM");
}

// ── figures ──────────────────────────────────────────────────────────────────

type RouteFigures = {
  route: string;
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  s5xx: number;
  cut: number;
  errors: number;
};

function perRoute(samples: Sample[]): RouteFigures[] {
  const byRoute = new Map<string, Sample[]>();
  for (const s of samples) byRoute.set(s.route, [...(byRoute.get(s.route) ?? []), s]);
  return [...byRoute]
    .map(([route, list]) => {
      const ms = list
        .filter((s) => s.status > 0 && !s.cut)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      return {
        route,
        count: list.length,
        p50: quantile(ms, 0.5),
        p95: quantile(ms, 0.95),
        p99: quantile(ms, 0.99),
        max: ms.at(-1) ?? 0,
        s5xx: list.filter((s) => s.status >= 500 && !s.cut).length,
        cut: list.filter((s) => s.cut).length,
        errors: list.filter((s) => s.status === 0 && !s.cut).length,
      };
    })
    .sort((a, b) => b.count - a.count);
}

/** The order a checkout's path names ("/checkout/<id>/"), if it does. */
const orderOf = (path: string) => /^\/checkout\/([^/]+)/.exec(path)?.[1];

/** The request was in flight while the fault lasted (or in the second after it: connections found dead). */
const during = (s: Sample, f: Fault) => s.at <= f.end + 1_000 && s.at + s.ms >= f.at;

/**
 * The crash that excuses a request's failure, if one does: a POST cut at an instance killed while
 * it ran, a POST answered 5xx while PostgreSQL crashed (decision 020: a write whose connection
 * died). A GET is never excused: the proxy sends it again, the pool repeats a read.
 */
function excusingCrash(s: Sample, faults: Fault[]): Fault | undefined {
  if (s.route.startsWith("GET ") || s.route.startsWith("HEAD ")) return undefined;
  return faults.find((f) => f.kind === "crash" && during(s, f) && (f.instance === undefined ? s.status >= 500 && !s.cut : s.cut));
}

/** What the proxy saw of one fault's instance during its window (and a second after). */
function inFlight(fault: Fault, stats: ProxyStats, instance: number | null) {
  const within = stats.events.filter(
    (e) => e.at >= fault.at && e.at <= fault.end + 1_000 && (instance === null || e.upstream === instance),
  );
  const count = (kind: string) => within.filter((e) => e.kind === kind).length;
  return {
    cut: count("cut") + count("cut-mid-response"),
    getsRetried: count("get-retried"),
    refusedAndSentElsewhere: count("refused") + count("turned-away"),
    cutRequests: within.filter((e) => e.kind === "cut" || e.kind === "cut-mid-response").map((e) => `${e.method} ${e.path}`),
  };
}

// ── main ─────────────────────────────────────────────────────────────────────

const report: Record<string, unknown> = {
  startedAt: new Date(epoch).toISOString(),
  machine: { cpus: cpus().length, loadavgAtStart: loadavg() },
  options: {
    durationMs,
    rateVisitsPerMinute: rate,
    peakVisitsPerMinute: peak,
    customers: customerCount,
    months: monthCount,
    mix: MIX,
    pgbouncer: options.pgbouncer,
  },
};
const checks: Check[] = [];

// ── the run's phases, in order ──────────────────────────────────────────────────

type Deployment = { origin: string; proxyPort: number; env: NodeJS.ProcessEnv; db: Database };

/**
 * Builds the portal if needed, starts the private PostgreSQL, the two instances and the proxy in
 * front of them, and opens the run's own pool.
 */
async function startDeployment(): Promise<Deployment> {
  buildIfStale();
  scratch = mkdtempSync(path.join(tmpdir(), "portal-load-"));
  const [pgPort, proxyPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const origin = `http://localhost:${proxyPort}`;
  console.log(
    `Load and faults: ${seconds(durationMs)} s at ${rate} visits a minute (peak ${peak}), ${customerCount} customers, ` +
      `${monthCount} subscription months falling due; two instances behind ${origin}`,
  );

  postgres = startPrivatePostgres(pgPort!);
  console.log(`private PostgreSQL on 127.0.0.1:${pgPort}`);
  const env = measuredProductionEnv({
    DATABASE_URL: postgres.url,
    PUBLIC_ORIGIN: origin,
    // One proxy in front (scripts/load/proxy.ts): its last X-Forwarded-For entry is the client.
    TRUST_PROXY: "1",
  });
  delete env.PASSWORD_HASH_COST;
  await seedDemoCatalogue(env);
  // The proxy first: an instance is ready only once it reaches its identity provider through
  // PUBLIC_ORIGIN, the proxy's (server/http/app.ts, /readyz); an instance not started yet refuses
  // the connection, and the proxy sends the request to one that is.
  proxy = await startProxy(ports, proxyPort!, epoch);
  const instanceEnv = options.pgbouncer ? { ...env, ...(await behindPgbouncer(postgres.url)) } : env;
  instances = ports.map((port, i) => new Instance(i, port, instanceEnv));
  // One after the other the first time: the first one migrates (already done) and checks its keys.
  for (const instance of instances) console.log(`instance ${instance.index + 1} ready in ${seconds(await instance.start())} s`);
  // The run's own statements: a pool whose waits end (a connection cut by the restart must fail
  // and be tried again, not hang the run).
  database = new pg.Pool({ connectionString: postgres.url, max: 4, connectionTimeoutMillis: 5_000, query_timeout: 60_000 });
  database.on("error", () => undefined);
  // A connection checked out when PostgreSQL restarts (a transaction between two statements) has
  // no pool listener: its 'error' event would end the run; its next statement fails instead, and
  // withRetry tries again.
  database.on("connect", (client) => client.on("error", () => undefined));
  const db = drizzle({ client: database, schema }) as unknown as Database;
  return { origin, proxyPort: proxyPort!, env, db };
}

/** A private PgBouncer in transaction mode before the private PostgreSQL, and the instances' settings to use it. */
async function behindPgbouncer(serverUrl: string): Promise<NodeJS.ProcessEnv> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await setRoleTimeouts(admin).finally(() => admin.end());
  pgbouncer = await startPgbouncer(serverUrl);
  console.log(`PgBouncer (transaction mode) on 127.0.0.1:${pgbouncer.port}, in front of the private PostgreSQL`);
  return { DATABASE_URL: pgbouncer.urlOf(serverUrl), DATABASE_DIRECT_URL: serverUrl, DATABASE_POOLER: "transaction" };
}

type Preparation = {
  /** The eBooks the load buys. */
  products: string[];
  single: string[];
  multi: string[];
  maxUses: Map<string, number>;
  /** The requests the preparation made (the load's come after them). */
  setupSamples: number;
};

/** The activation codes (npm run admin -- codes:create) and the customers, registered and signed in. */
async function prepare({ origin, proxyPort, env, db }: Deployment): Promise<Preparation> {
  const products = (
    await rowsOf<{ sku: string }>(
      db,
      sql`select p.sku from products p join product_types t on t.id = p.product_type_id
        where t.code = 'ebook' and p.sellable and p.grants_access and p.price_cents > 0 order by p.sku limit 6`,
    )
  ).map((r) => r.sku);
  if (products.length === 0) throw new Error("the catalogue sells no eBook");
  const activationsExpected = visitsExpected * (MIX.activation / 100);
  const single = await createCodes(env, products[0]!, Math.ceil(activationsExpected * 1.3) + 10, 1);
  const multi = await createCodes(env, products[1] ?? products[0]!, Math.ceil(activationsExpected * 0.15) + 3, MULTI_USE);
  const maxUses = new Map([...single.map((c) => [c, 1] as const), ...multi.map((c) => [c, MULTI_USE] as const)]);
  console.log(
    `activation codes: ${single.length} single-use, ${multi.length} of ${MULTI_USE} uses (npm run admin -- codes:create)`,
  );

  const t = performance.now();
  customers = await createCustomers({
    origin,
    proxyPort,
    count: customerCount,
    recorder,
    ledger,
    tag: stamp.toLowerCase(),
  });
  console.log(`${customers.length} customers registered and signed in in ${seconds(performance.now() - t)} s`);
  return { products, single, multi, maxUses, setupSamples: recorder.samples.length };
}

type LoadRun = {
  loadStart: number;
  loadEnd: number;
  loadMs: number;
  loadSamples: Sample[];
  driven: Awaited<ReturnType<typeof drive>>;
  faults: Fault[];
};

/** Inserts the months falling due during the run, then drives the load for --duration while the faults come. */
async function runLoad(
  { origin, db, env }: Deployment,
  { products, single, multi, setupSamples }: Preparation,
): Promise<LoadRun> {
  const loadStart = Date.now() + 1_000;
  const loadEnd = loadStart + durationMs;
  const t = performance.now();
  const seeded = await seedMonths(db, loadStart);
  console.log(`${seeded} subscriptions inserted, their second month due during the run (${seconds(performance.now() - t)} s)`);
  await new Promise((r) => setTimeout(r, Math.max(0, loadStart - Date.now())));

  console.log(`\nLoad: ${seconds(durationMs)} s`);
  const faults: Fault[] = [];
  const progress = setInterval(() => {
    const recent = recorder.samples.filter((s) => s.at > now() - 10_000);
    console.log(
      `  [${seconds(Date.now() - loadStart)} s] ${(recent.length / 10).toFixed(1)} requests/s over the last 10 s, ` +
        `${recent.filter((s) => s.status >= 500).length} 5xx, ${customers.filter((c) => c.busy).length} customers in a visit`,
    );
  }, 30_000);
  const [driven] = await Promise.all([
    drive({ origin, products, single, multi, loadEnd, db }),
    injectFaults(loadStart, faults, env).catch((error: unknown) =>
      failures.push(`a fault could not be injected: ${String(error)}`),
    ),
  ]);
  clearInterval(progress);
  const loadMs = Date.now() - loadStart;
  const loadSamples = recorder.samples.slice(setupSamples);
  console.log(`load over: ${driven.started} visits in ${seconds(loadMs)} s`);
  return { loadStart, loadEnd, loadMs, loadSamples, driven, faults };
}

/** The work under way settles: months due charged (a month cut mid-charge waits for its lease). How long it took. */
async function settle(db: Database, loadEnd: number): Promise<number> {
  const t = performance.now();
  for (;;) {
    const pending = await withRetry(() => pendingWork(db, new Date(loadEnd)));
    if (pending.months === 0 && pending.attempts === 0) break;
    if (performance.now() - t > settleMs) {
      console.log(`still pending after ${seconds(settleMs)} s: ${pending.months} month(s), ${pending.attempts} payment(s)`);
      break;
    }
    console.log(
      `  settling: ${pending.months} month(s) due (${pending.charging} being charged, claimed by a lease) and ` +
        `${pending.attempts} payment(s) under way`,
    );
    await new Promise((r) => setTimeout(r, 10_000));
  }
  return performance.now() - t;
}

type SessionResult = { session: (typeof ledger.sessions)[number]; works: boolean; status: number };
type Outcome = {
  proxyStats: ProxyStats;
  routes: RouteFigures[];
  total5xx: number;
  totalCut: number;
  totalErrors: number;
  /** The requests whose failure a crash excuses, with it. */
  excused: { sample: Sample; fault: Fault }[];
  figures: Record<string, number>;
  sessionResults: SessionResult[];
  lost: SessionResult[];
  lostToCrash: SessionResult[];
  lostOtherwise: SessionResult[];
  /** The customers of the visits each crash failed, one entry a visit. */
  failedVisitsByCrash: Map<Fault, number[]>;
  /** What became of the orders whose payment the customer did not see confirmed: their statuses now. */
  unconfirmedOrders: Record<string, number>;
};

/** The checks of what the load left: answers, exits, the database, the ledger, the sessions. */
async function checkOutcome(
  { origin, env, db }: Deployment,
  { maxUses }: Preparation,
  { loadEnd, loadSamples, faults }: LoadRun,
): Promise<Outcome> {
  const proxyStats = await proxy!.stats();
  const routes = perRoute(loadSamples);
  const total5xx = routes.reduce((sum, r) => sum + r.s5xx, 0);
  const totalCut = routes.reduce((sum, r) => sum + r.cut, 0);
  const totalErrors = routes.reduce((sum, r) => sum + r.errors, 0);
  const excused = loadSamples.flatMap((sample) => {
    const fault = excusingCrash(sample, faults);
    return fault ? [{ sample, fault }] : [];
  });
  const isExcused = new Set(excused.map((e) => e.sample));
  const unexcused5xx = loadSamples.filter((s) => s.status >= 500 && !s.cut && !isExcused.has(s));
  checks.push({
    label: "responses 5xx (the portal's, or the proxy's for no instance), a crash's failed writes apart",
    value: unexcused5xx.length,
    want: 0,
    ok: unexcused5xx.length === 0,
    examples: unexcused5xx.slice(0, 5).map((s) => `${s.route} ${s.status} at ${seconds(s.at)} s`),
  });
  // The drain (server/http/shutdown.ts) and the proxy's rules leave a SIGTERM nothing to cut.
  const unexcusedCuts = loadSamples.filter((s) => s.cut && !isExcused.has(s));
  checks.push({
    label: "requests cut by a restart (SIGTERM), or outside every crash",
    value: unexcusedCuts.length,
    want: 0,
    ok: unexcusedCuts.length === 0,
    examples: unexcusedCuts.slice(0, 5).map((s) => `${s.route} at ${seconds(s.at)} s`),
  });
  checks.push({ label: "requests with no answer at all (timeouts, resets)", value: totalErrors, want: 0, ok: totalErrors === 0 });
  for (const instance of instances) {
    const crashed = instance.unexpectedExits.length;
    checks.push({ label: `instance ${instance.index + 1} exits nobody asked for`, value: crashed, want: 0, ok: crashed === 0 });
  }
  const { checks: dbChecks, figures } = await withRetry(() => databaseChecks(db, new Date(loadEnd)));
  checks.push(...dbChecks);
  checks.push(
    ...(await crashRecoveryChecks(
      db,
      faults.filter((f) => f.kind === "crash").map((f) => ({ what: f.what, end: new Date(epoch + f.end) })),
    )),
  );
  checks.push(...(await ledgerChecks(db, ledger, env.ACTIVATION_CODE_KEY!, maxUses)));
  // A visit's failure is the crash's when one of its requests met it: a POST in flight during it
  // (cut, failed, or its payment left to the reconciler: "being verified"), a GET the proxy sent
  // again from the killed instance (a sign-in's callback: its one-time code went with the first),
  // or a request about an order whose payment a crash met (finished by the reconciler within its
  // lease, it is "under way" meanwhile: 409).
  const crashDuring = (s: Sample) =>
    s.route.startsWith("GET ") && !s.resent ? undefined : faults.find((f) => f.kind === "crash" && during(s, f));
  const touchedOrders = new Map<string | undefined, Fault>();
  for (const s of loadSamples) {
    const fault = s.route.startsWith("POST ") ? crashDuring(s) : undefined;
    if (fault) touchedOrders.set(orderOf(s.path), fault);
  }
  touchedOrders.delete(undefined);
  const crashOf = (s: Sample) => crashDuring(s) ?? touchedOrders.get(orderOf(s.path));
  const crashOfVisit = (v: { customer: number; at: number; ms: number }) =>
    loadSamples
      .filter((s) => s.customer === v.customer && s.at >= v.at && s.at <= v.at + v.ms)
      .map(crashOf)
      .find((f) => f !== undefined);
  const failedVisits = ledger.visits.filter((v) => !v.ok);
  const failedVisitsByCrash = new Map<Fault, number[]>();
  const failedOtherwise = failedVisits.filter((v) => {
    const fault = crashOfVisit(v);
    if (fault) failedVisitsByCrash.set(fault, [...(failedVisitsByCrash.get(fault) ?? []), v.customer]);
    return !fault;
  });
  checks.push({
    label: "visits that failed, but for a request a crash cut or failed",
    value: failedOtherwise.length,
    want: 0,
    ok: failedOtherwise.length === 0,
    examples: [...new Set(failedOtherwise.map((v) => `${v.kind}: ${v.reason}`))].slice(0, 5),
  });

  // Every session the load created still opens the dashboard.
  const sessionResults = await Promise.all(
    ledger.sessions.map(async (session, i) => {
      await new Promise((r) => setTimeout(r, (i % 50) * 20));
      const customer = customers[session.customer]!;
      const res = await customer.http(`${origin}/dashboard/`, { redirect: "manual", headers: { cookie: session.cookie } });
      await res.arrayBuffer();
      return { session, works: res.status === 200, status: res.status };
    }),
  );
  const unconfirmedIds = ledger.purchases.filter((p) => p.outcome === "unconfirmed").map((p) => p.orderPath.split("/")[2]!);
  const unconfirmedOrders: Record<string, number> = {};
  if (unconfirmedIds.length) {
    const rows = await rowsOf<{ status: string; n: number }>(
      db,
      sql`select status, count(*)::int as n from orders where id::text in (${sql.join(
        unconfirmedIds.map((id) => sql`${id}`),
        sql`, `,
      )}) group by status`,
    );
    for (const r of rows) unconfirmedOrders[r.status] = r.n;
  }
  const lost = sessionResults.filter((r) => !r.works);
  const metCrash = (r: SessionResult) =>
    excused.some(({ sample: s }) => s.customer === r.session.customer && s.at >= r.session.createdAt);
  const lostToCrash = lost.filter(metCrash);
  const lostOtherwise = lost.filter((r) => !metCrash(r));
  checks.push({
    label: "sessions lost, but for a customer's request a crash cut or failed",
    value: lostOtherwise.length,
    want: 0,
    ok: lostOtherwise.length === 0,
    examples: lostOtherwise.slice(0, 5).map((r) => `customer ${r.session.customer}: ${r.status}`),
  });
  return {
    proxyStats,
    routes,
    total5xx,
    totalCut,
    totalErrors,
    excused,
    figures,
    sessionResults,
    lost,
    lostToCrash,
    lostOtherwise,
    failedVisitsByCrash,
    unconfirmedOrders,
  };
}

/** Prints the load's figures and the faults', and puts them in the report. */
function reportLoadAndFaults({ loadStart, loadMs, loadSamples, driven, faults }: LoadRun, outcome: Outcome, settledMs: number) {
  const { proxyStats, routes, excused, figures, sessionResults, lost } = outcome;
  // ── report: load ──
  const requests = loadSamples.length;
  console.log(
    `\nLoad: ${requests} requests in ${seconds(loadMs)} s (${(requests / (loadMs / 1000)).toFixed(1)}/s), ` +
      `${driven.started} visits (${((driven.started * 60_000) / loadMs).toFixed(0)} a minute), ${outcome.total5xx} × 5xx, ${outcome.totalCut} cut`,
  );
  table(
    ["route", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms", "5xx", "cut"],
    routes.map((r) => [
      r.route,
      String(r.count),
      r.p50.toFixed(0),
      r.p95.toFixed(0),
      r.p99.toFixed(0),
      r.max.toFixed(0),
      String(r.s5xx),
      String(r.cut),
    ]),
  );
  const visitsByKind = VISIT_KINDS.map((kind) => {
    const list = ledger.visits.filter((v) => v.kind === kind);
    return {
      kind,
      visits: list.length,
      failed: list.filter((v) => !v.ok).length,
      cut: list.filter((v) => !v.ok && v.cut).length,
    };
  });
  console.log();
  table(
    ["visit", "visits", "failed", "of which cut"],
    visitsByKind.map((v) => [v.kind, String(v.visits), String(v.failed), String(v.cut)]),
  );
  if (Object.keys(driven.skipped).length) console.log(`arrivals not started: ${JSON.stringify(driven.skipped)}`);
  const contested = ledger.activations.filter((a) => a.contested);
  console.log(
    `activations: ${ledger.activations.filter((a) => a.outcome === "activated").length} activated, ` +
      `${ledger.activations.filter((a) => a.outcome === "refused").length} refused (${contested.length} attempts on contested codes)`,
  );
  console.log(
    `purchases: ${ledger.purchases.filter((p) => p.outcome === "confirmed").length} confirmed of ${ledger.purchases.length} paid for ` +
      `(${ledger.purchases.filter((p) => p.declinedFirst).length} first with a declined card; the orders not confirmed to ` +
      `their customer now ${JSON.stringify(outcome.unconfirmedOrders)}); ` +
      `EDU bought: ${ledger.eduBought.length} (second month moved into the run: ${driven.moved}, too late: ${driven.notMoved})`,
  );
  console.log(`database: ${JSON.stringify(figures)}; settled in ${seconds(settledMs)} s`);

  // ── report: faults ──
  console.log("\nFaults");
  const faultRows = faults.map((f) => {
    const seen = inFlight(f, proxyStats, f.instance ?? null);
    const meanwhile = loadSamples.filter((s) => during(s, f));
    const failed = meanwhile.filter((s) => s.cut || s.status >= 500 || s.status === 0);
    const s5xxByRoute: Record<string, number> = {};
    for (const s of meanwhile) if (s.status >= 500 && !s.cut) s5xxByRoute[s.route] = (s5xxByRoute[s.route] ?? 0) + 1;
    return {
      ...f,
      atSecond: (f.at - (loadStart - epoch)) / 1000,
      ...seen,
      requestsDuring: meanwhile.length,
      s5xxDuring: meanwhile.filter((s) => s.status >= 500 && !s.cut).length,
      s5xxByRoute,
      excused: excused.filter((e) => e.fault === f).length,
      customersMet: new Set([...failed.map((s) => s.customer), ...(outcome.failedVisitsByCrash.get(f) ?? [])]).size,
      visitsFailed: outcome.failedVisitsByCrash.get(f)?.length ?? 0,
    };
  });
  table(
    ["fault", "at s", "down s", "ready s", "requests", "5xx", "POSTs cut", "GETs resent", "refused → other", "customers met"],
    faultRows.map((f) => [
      f.what,
      f.atSecond.toFixed(0),
      seconds(f.stopMs),
      f.startMs === undefined ? "-" : seconds(f.startMs),
      String(f.requestsDuring),
      String(f.s5xxDuring),
      String(f.cut),
      String(f.getsRetried),
      String(f.refusedAndSentElsewhere),
      String(f.customersMet),
    ]),
  );
  for (const f of faultRows) {
    if (f.killedInFlight) console.log(`  ${f.what}: in flight at the crash: ${f.killedInFlight.join(", ") || "nothing"}`);
    if (f.cutRequests.length) console.log(`  ${f.what}: cut ${f.cutRequests.join(", ")}`);
    if (f.s5xxDuring) console.log(`  ${f.what}: 5xx ${JSON.stringify(f.s5xxByRoute)}`);
    if (f.kind === "crash")
      console.log(`  ${f.what}: ${f.excused} failed requests excused (a crash); ${f.visitsFailed} visits failed by it`);
  }
  console.log(
    `sessions: ${sessionResults.length} checked, ${sessionResults.length - lost.length} open the dashboard, ` +
      `${outcome.lostToCrash.length} lost by customers a crash met, ${outcome.lostOtherwise.length} lost otherwise`,
  );

  report.load = {
    requests,
    seconds: loadMs / 1000,
    requestsPerSecond: requests / (loadMs / 1000),
    visits: driven.started,
    skipped: driven.skipped,
    s5xx: outcome.total5xx,
    cut: outcome.totalCut,
    errors: outcome.totalErrors,
    routes,
    visitsByKind,
  };
  report.faults = faultRows;
  report.proxy = { forwarded: proxyStats.forwarded, answered: proxyStats.answered, noUpstream: proxyStats.noUpstream };
  report.database = figures;
  report.unconfirmedOrders = outcome.unconfirmedOrders;
  report.sessions = {
    checked: sessionResults.length,
    lostToCrash: outcome.lostToCrash.length,
    lostOtherwise: outcome.lostOtherwise.length,
  };
  report.settledSeconds = settledMs / 1000;
}

/** The mid-run backup restored, a portal started on it, the checks on it; printed and reported. */
async function restoreAndCheck({ env }: Deployment, { maxUses }: Preparation, { loadStart }: LoadRun) {
  const backup = await midRunBackup;
  if (!backup) return; // not taken (a fault failed before it), or its failure is among the failures
  console.log("\nBackup and restore");
  const proof = await proveRestore({
    serverUrl: postgres!.url,
    env,
    backup,
    backupAt: new Date(epoch + backup.at),
    maxUses,
    onInstance: (instance) => instances.push(instance),
  });
  checks.push(...proof.checks);
  const { restoreMs, readyMs, underWay, told, database, sessionsTried } = proof.figures;
  console.log(
    `  backup at ${seconds(backup.at - (loadStart - epoch))} s of the load, under the load: ${(backup.bytes / 1e6).toFixed(1)} MB in ${seconds(backup.ms)} s (npm run admin -- backup, pg_dump)`,
  );
  console.log(
    `  restored into a new database in ${seconds(restoreMs)} s (npm run admin -- restore); a portal on it ready in ${seconds(readyMs)} s`,
  );
  console.log(
    `  on the copy: ${database.paid_orders} paid orders, ${database.payments} payments, ${database.redemptions} code redemptions; ` +
      `before the backup the customers had seen ${told.confirmedPurchases} orders confirmed, ${told.activations} codes activated, ` +
      `${told.eduBought} EDU bought; ${sessionsTried} of their sessions tried on the copy's dashboard`,
  );
  console.log(
    `  under way at the backup's moment (finished by the portal on the copy once their leases run out): ` +
      `${underWay.months} month(s) due (${underWay.charging} being charged), ${underWay.attempts} payment(s)`,
  );
  report.restore = {
    backupAtSecond: (backup.at - (loadStart - epoch)) / 1000,
    backupSeconds: backup.ms / 1000,
    backupBytes: backup.bytes,
    restoreSeconds: restoreMs / 1000,
    readySeconds: readyMs / 1000,
    underWay,
    told,
    database,
    sessionsTried,
    checks: proof.checks,
  };
}

/** Lighthouse and the dashboard at 50 connections, on the idle deployment. */
async function measureIdleDeployment(origin: string, products: string[]) {
  const viewer = customers[0]!;
  const checkoutPage = await openCheckout(origin, viewer.session.cookie, products[2] ?? products[0]!, viewer.http);
  if (!options["skip-lighthouse"]) {
    console.log("\nLighthouse (mobile profile: emulated phone, simulated slow 4G and 4 × slower CPU)");
    let pages: PageFigures[] = [];
    try {
      pages = await lighthousePages([
        { page: "/", url: `${origin}/` },
        { page: "/edu/", url: `${origin}/edu/` },
        { page: "/dashboard/", url: `${origin}/dashboard/`, cookie: viewer.session.cookie },
        { page: "a checkout page", url: origin + checkoutPage, cookie: viewer.session.cookie },
      ]);
    } catch (error) {
      failures.push(`Lighthouse: ${error instanceof Error ? error.message : String(error)}`);
    }
    table(
      ["page", "LCP ms", "TBT ms", "transfer KB", "score"],
      pages.map((p) => [p.page, p.lcpMs.toFixed(0), p.tbtMs.toFixed(0), (p.transferBytes / 1000).toFixed(1), p.score.toFixed(0)]),
    );
    for (const p of pages) if (p.error) failures.push(`Lighthouse on ${p.page}: ${p.error}`);
    report.lighthouse = pages;
  }

  console.log(`\nThe dashboard at ${DASHBOARD_CONNECTIONS} connections (autocannon through the proxy, ${dashboardSeconds} s)`);
  const cannon = await autocannon({
    url: `${origin}/dashboard/`,
    connections: DASHBOARD_CONNECTIONS,
    duration: dashboardSeconds,
    headers: { cookie: viewer.session.cookie },
  });
  const dashboard = {
    requestsPerSecond: cannon.requests.average,
    p50: cannon.latency.p50,
    p99: cannon.latency.p99,
    max: cannon.latency.max,
    non2xx: cannon.non2xx,
    errors: cannon.errors + cannon.timeouts,
  };
  console.log(
    `  ${dashboard.requestsPerSecond.toFixed(0)} requests/s, p50 ${dashboard.p50} ms, p99 ${dashboard.p99} ms, max ${dashboard.max} ms, ` +
      `${dashboard.non2xx} non-2xx, ${dashboard.errors} errors`,
  );
  checks.push({
    label: `dashboard at ${DASHBOARD_CONNECTIONS} connections: answers other than 200`,
    value: dashboard.non2xx + dashboard.errors,
    want: 0,
    ok: dashboard.non2xx + dashboard.errors === 0,
  });
  report.dashboard50 = dashboard;
}

try {
  const deployment = await startDeployment();
  const preparation = await prepare(deployment);
  const run = await runLoad(deployment, preparation);
  const settledMs = await settle(deployment.db, run.loadEnd);
  const outcome = await checkOutcome(deployment, preparation, run);
  reportLoadAndFaults(run, outcome, settledMs);
  await restoreAndCheck(deployment, preparation, run);
  await measureIdleDeployment(deployment.origin, preparation.products);
} catch (error) {
  failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await teardown();
}

// ── verdict ──
console.log("\nChecks");
for (const c of checks) {
  console.log(`  ${c.ok ? "PASS" : "FAIL"}  ${c.label}: ${c.value}${c.ok ? "" : ` (want ${c.want})`}`);
  if (!c.ok && c.examples?.length) console.log(`          e.g. ${c.examples.join("; ")}`);
}
for (const instance of instances) instance.log.print(`Instance ${instance.index + 1}`);
for (const c of checks) if (!c.ok) failures.push(`${c.label}: ${c.value} (want ${c.want})`);
report.checks = checks;
report.failures = failures;
report.machine = { ...(report.machine as object), loadavgAtEnd: loadavg() };
report.serverLogs = instances.map((i) => i.log.counts());
writeFileSync(outFile, JSON.stringify(report, null, 2));
console.log(`\nReport written to ${path.relative(process.cwd(), outFile)}`);
if (failures.length) console.log(`\nFAIL:\n${failures.map((f) => `  - ${f}`).join("\n")}`);
else console.log("\nEvery check passed.");
process.exit(failures.length ? 1 : 0);
