// `npm run upgrade-test`: a rolling upgrade as docs/operating.md, "Upgrading", does it, under a
// light load through Debian's nginx with the shipped deploy/nginx/portal.conf:
//   1. the previous release (a git ref: by default the parent of the commit that added the newest
//      migration; --from <ref> names another) is unpacked into a folder of its own with
//      `git archive`, given this tree's node_modules and built there; its own tooling migrates an
//      empty PostgreSQL database and seeds the demo catalogue; two of its instances serve;
//   2. virtual customers (scripts/load/customers.ts) sign in, read the dashboard and buy eBooks with
//      the sandbox's card, without pause;
//   3. this tree's migrations are applied (`node scripts/db.ts migrate`, npm run db:migrate) while
//      the previous release serves, which then runs for a while on the new schema;
//   4. the instances are replaced one by one with this release (scripts/rolling-restart.ts: each
//      once the one before is ready as nginx sees it);
//   5. the load stops and the checks run: no 5xx, no request without an answer, no failed visit, no
//      instance exit nobody asked for, and the load's invariants (scripts/load/invariants.ts: every
//      paid order one payment, one charge and its access; what a customer saw confirmed is paid).
// Options: --from <ref>, --customers N (4), --phase-seconds S (8: the load before the migration,
// between it and the roll, and after it). DATABASE_URL names the PostgreSQL cluster where the run
// creates its database (postgres://postgres@127.0.0.1:5432/postgres by default) and drops it after.
// Exits 1 when a check fails. tests/integration/rolling-upgrade.test.ts runs it in CI.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Database } from "#server/db/client.ts";
import * as schema from "#server/db/schema/index.ts";
import { freePort, measuredProductionEnv } from "#scripts/bench/server.ts";
import { buildIfStale } from "#scripts/build-if-stale.ts";
import { Recorder } from "#scripts/load/client.ts";
import { createCustomers, newLedger, visit, type Customer, type Ledger, type VisitKind } from "#scripts/load/customers.ts";
import { Instance } from "#scripts/load/instances.ts";
import { databaseChecks, ledgerChecks, pendingWork, type Check } from "#scripts/load/invariants.ts";
import { rollingRestart } from "#scripts/rolling-restart.ts";
import { startNginx } from "#tests/support/nginx.ts";

const root = path.resolve(import.meta.dirname, "..");
const MIGRATIONS = "server/db/migrations";

export type UpgradeOptions = {
  /** The previous release's git ref; by default previousRelease(). */
  from?: string;
  /** A connection to the PostgreSQL cluster where the run creates (and drops) its database. */
  adminUrl: string;
  customers?: number;
  phaseMs?: number;
  log?: (line: string) => void;
};

export type UpgradeResult = {
  from: string;
  checks: Check[];
  figures: {
    requests: number;
    byStatus: Record<string, number>;
    s5xx: number;
    noAnswer: number;
    visits: number;
    failedVisits: number;
    purchasesConfirmed: number;
    /** Purchases paid (checkout visits that ended confirmed) by phase. */
    purchasesBy: { beforeMigration: number; previousOnNewSchema: number; duringRoll: number; after: number };
    /** ms each step took. */
    buildPreviousMs: number;
    migrateMs: number;
    replaced: { address: string; stopMs: number; stopExit: string; startMs: number }[];
    rollMs: number;
    totalMs: number;
    database: Record<string, number>;
  };
};

const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

/**
 * The release before this one's newest migration: the parent of the commit that brought it to this
 * branch (on the first-parent line: a merge of the branch that wrote it, or the commit itself).
 * Throws when git's history does not reach that far (a shallow clone).
 */
export function previousRelease(): string {
  const journal = JSON.parse(git("show", `HEAD:${MIGRATIONS}/meta/_journal.json`)) as { entries: { tag: string }[] };
  const newest = journal.entries.at(-1)!.tag;
  const file = `${MIGRATIONS}/${newest}.sql`;
  const added = git(
    "log",
    "--first-parent",
    "--diff-merges=first-parent",
    "--diff-filter=A",
    "--no-patch",
    "--format=%H",
    "--",
    file,
  )
    .split("\n")
    .at(-1);
  if (!added) throw new Error(`git's history has no commit adding ${file} (a shallow clone?)`);
  return git("rev-parse", `${added}^`);
}

/** Runs `node <args>` in `cwd`; rejects with its output unless it exits 0. */
function node(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`node ${args.join(" ")} in ${cwd} exited with ${code}:\n${output}`)),
    );
  });
}

/** The tree of `ref` in a folder of its own, with this tree's node_modules, built. */
async function unpackAndBuild(ref: string, dir: string): Promise<void> {
  execFileSync("sh", ["-c", `git archive --format=tar ${ref} | tar -x -C ${JSON.stringify(dir)}`], { cwd: root });
  symlinkSync(realpathSync(path.join(root, "node_modules")), path.join(dir, "node_modules"));
  // A production build whatever NODE_ENV the caller runs under (vitest sets "test").
  const { NODE_ENV: _, ...env } = process.env;
  await node(dir, [path.join(dir, "node_modules/.bin/react-router"), "build"], env);
}

const VISIT_MIX: VisitKind[] = ["dashboard", "dashboard", "checkout", "sign-in"];
/**
 * Card payments a customer starts at most (the portal allows 10 an hour each), one every
 * CHECKOUT_EVERY_MS at most, and no more than its share of them in each of the four phases (before
 * the migration, between it and the roll, the roll, after it): spread over the run, so purchases go
 * on in every phase however long the roll takes (a slow roll once spent them all before the last).
 */
const PAYMENTS_EACH = 8;
const PHASES = 4;
const CHECKOUT_EVERY_MS = 6_000;

/** Checkout visits that succeeded, counted by the phase they began in (`marks`: migration, roll, its end). */
function purchasesByPhase(visits: Ledger["visits"], marks: number[]): UpgradeResult["figures"]["purchasesBy"] {
  const counts = [0, 0, 0, 0];
  for (const v of visits) if (v.kind === "checkout" && v.ok) counts[marks.filter((mark) => v.at >= mark).length]!++;
  const [beforeMigration = 0, previousOnNewSchema = 0, duringRoll = 0, after = 0] = counts;
  return { beforeMigration, previousOnNewSchema, duringRoll, after };
}

export async function rollingUpgrade(options: UpgradeOptions): Promise<UpgradeResult> {
  const { adminUrl, customers: customerCount = 4, phaseMs = 8_000, log = console.log } = options;
  const runStarted = performance.now();
  const from = git("rev-parse", options.from ?? previousRelease());
  log(`previous release: ${from.slice(0, 12)} (${git("log", "-1", "--format=%s", from).slice(0, 80)})`);

  const previousTree = mkdtempSync(path.join(tmpdir(), "portal-previous-"));
  const databaseName = `portal_upgrade_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  const instances: Instance[] = [];
  const customers: Customer[] = [];
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  let pool: pg.Pool | undefined;
  await admin.connect();
  try {
    let t = performance.now();
    await unpackAndBuild(from, previousTree);
    buildIfStale();
    const buildPreviousMs = performance.now() - t;
    log(`previous release built in ${(buildPreviousMs / 1000).toFixed(1)} s`);

    await admin.query(`create database ${databaseName}`);
    const databaseUrl = new URL(adminUrl);
    databaseUrl.pathname = `/${databaseName}`;
    const ports = [await freePort(), await freePort()];
    nginx = await startNginx({ upstream: ports.map((port) => `127.0.0.1:${port}`) });
    const env = measuredProductionEnv({
      DATABASE_URL: databaseUrl.href,
      PUBLIC_ORIGIN: nginx.origin,
      TRUST_PROXY: "1",
    });
    // Production hashes passwords at the standard cost and refuses another.
    delete env.PASSWORD_HASH_COST;
    // The previous release's own migrations and demo catalogue (its seed outside production).
    const { NODE_ENV: _, ...seedEnv } = env;
    await node(previousTree, ["scripts/db.ts", "migrate"], seedEnv);
    await node(previousTree, ["scripts/db.ts", "seed"], seedEnv);
    for (const [index, port] of ports.entries()) instances.push(new Instance(index, port, env, previousTree));
    await Promise.all(instances.map((instance) => instance.start()));
    log(`two instances of the previous release serve behind ${nginx.origin}`);

    pool = new pg.Pool({ connectionString: databaseUrl.href, max: 2 });
    // Dropping the database at the end ends its connections (57P01) even as the pool closes them:
    // without listeners that 'error' event would end the process.
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
    const db = drizzle({ client: pool, schema }) as unknown as Database;
    const products = (
      (await db.execute(
        sql`select p.sku from products p join product_types t on t.id = p.product_type_id
          where t.code = 'ebook' and p.sellable and p.grants_access and p.price_cents > 0 order by p.sku limit 4`,
      )) as unknown as { rows: { sku: string }[] }
    ).rows.map((row) => row.sku);
    if (products.length === 0) throw new Error("the previous release's demo catalogue sells no eBook");

    const recorder = new Recorder(Date.now());
    const ledger = newLedger();
    const nginxPort = Number(new URL(nginx.origin).port);
    customers.push(
      ...(await createCustomers({
        origin: nginx.origin,
        proxyPort: nginxPort,
        count: customerCount,
        recorder,
        ledger,
        tag: "upgrade",
      })),
    );
    const setupSamples = recorder.samples.length;
    const ctx = { origin: nginx.origin, ledger, recorder, products, onEduBought: () => undefined };
    let loading = true;
    const lastCheckout: number[] = [];
    /** When each phase after the first began (the recorder's clock): the migration, the roll, its end. */
    const marks: number[] = [];
    const load = Promise.all(
      customers.map(async (customer, i) => {
        for (let n = i; loading; n++) {
          let kind = VISIT_MIX[n % VISIT_MIX.length]!;
          if (kind === "checkout") {
            const phaseBudget = ((marks.length + 1) * PAYMENTS_EACH) / PHASES;
            if (customer.payments >= phaseBudget || Date.now() - (lastCheckout[i] ?? 0) < CHECKOUT_EVERY_MS) kind = "dashboard";
            else lastCheckout[i] = Date.now();
          }
          await visit(kind, [customer], ctx);
        }
      }),
    );
    const loadStart = Date.now();
    const pause = () => new Promise((resolve) => setTimeout(resolve, phaseMs));

    await pause();
    marks.push(recorder.now());
    t = performance.now();
    await node(root, ["scripts/db.ts", "migrate"], env);
    const migrateMs = performance.now() - t;
    log(`this release's migrations applied while the previous release served, in ${(migrateMs / 1000).toFixed(1)} s`);
    await pause();

    const replaced: UpgradeResult["figures"]["replaced"] = [];
    marks.push(recorder.now());
    t = performance.now();
    await rollingRestart(
      instances.map((instance) => `127.0.0.1:${instance.port}`),
      {
        async restart(address) {
          const index = instances.findIndex((instance) => address.endsWith(`:${instance.port}`));
          const old = instances[index]!;
          const stop = await old.stop();
          const next = new Instance(old.index, old.port, env, root);
          instances[index] = next;
          const startMs = await next.start();
          replaced.push({ address, stopMs: Math.round(stop.ms), stopExit: stop.exit, startMs: Math.round(startMs) });
          await old.destroy();
        },
        report: log,
      },
    );
    const rollMs = performance.now() - t;
    marks.push(recorder.now());
    await pause();
    // The last phase lasts until a purchase in it is confirmed too (a minute at most), however busy the machine.
    for (let waited = 0; purchasesByPhase(ledger.visits, marks).after === 0 && waited < 60; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    loading = false;
    await load;
    const loadEnd = new Date();
    log(`load over after ${((Date.now() - loadStart) / 1000).toFixed(1)} s; settling`);

    // The payments under way finish (a sandbox payment takes a moment; a lease gives up in minutes).
    for (let waited = 0; (await pendingWork(db, loadEnd)).attempts > 0 && waited < 120; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }

    const samples = recorder.samples.slice(setupSamples);
    const byStatus: Record<string, number> = {};
    for (const sample of samples) byStatus[sample.status] = (byStatus[sample.status] ?? 0) + 1;
    const s5xx = samples.filter((sample) => sample.status >= 500).length;
    const noAnswer = samples.filter((sample) => sample.status === 0).length;
    const failedVisits = ledger.visits.filter((v) => !v.ok);
    const { checks: invariants, figures: database } = await databaseChecks(db, loadEnd);
    const checks: Check[] = [
      { label: "responses 5xx (the portal's, or nginx's)", value: s5xx, want: 0, ok: s5xx === 0 },
      { label: "requests with no answer at all", value: noAnswer, want: 0, ok: noAnswer === 0 },
      {
        label: "visits that failed",
        value: failedVisits.length,
        want: 0,
        ok: failedVisits.length === 0,
        examples: [...new Set(failedVisits.map((v) => `${v.kind}: ${v.reason}`))].slice(0, 5),
      },
      ...instances.map((instance) => ({
        label: `instance ${instance.index + 1} (this release) exits nobody asked for`,
        value: instance.unexpectedExits.length,
        want: 0,
        ok: instance.unexpectedExits.length === 0,
      })),
      {
        label: "previous release's instances that did not stop cleanly",
        value: replaced.filter((r) => r.stopExit !== "exit 0").length,
        want: 0,
        ok: replaced.every((r) => r.stopExit === "exit 0"),
      },
      ...invariants,
      ...(await ledgerChecks(db, ledger, env.ACTIVATION_CODE_KEY!, new Map())),
    ];
    return {
      from,
      checks,
      figures: {
        requests: samples.length,
        byStatus,
        s5xx,
        noAnswer,
        visits: ledger.visits.length,
        failedVisits: failedVisits.length,
        purchasesConfirmed: ledger.purchases.filter((p) => p.outcome === "confirmed").length,
        purchasesBy: purchasesByPhase(ledger.visits, marks),
        buildPreviousMs: Math.round(buildPreviousMs),
        migrateMs: Math.round(migrateMs),
        replaced,
        rollMs: Math.round(rollMs),
        totalMs: Math.round(performance.now() - runStarted),
        database,
      },
    };
  } finally {
    for (const customer of customers) customer.http.close();
    await Promise.all(instances.map((instance) => instance.destroy()));
    await nginx?.close();
    await pool?.end();
    await admin.query(`drop database if exists ${databaseName} with (force)`).catch(() => undefined);
    await admin.end();
    rmSync(previousTree, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      from: { type: "string" },
      customers: { type: "string", default: "4" },
      "phase-seconds": { type: "string", default: "8" },
    },
  });
  const result = await rollingUpgrade({
    from: values.from,
    adminUrl: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    customers: Number(values.customers),
    phaseMs: Number(values["phase-seconds"]) * 1_000,
  });
  console.log(JSON.stringify(result.figures, null, 2));
  for (const check of result.checks) {
    console.log(
      `${check.ok ? "ok  " : "FAIL"} ${check.label}: ${check.value}${check.examples?.length ? ` ${JSON.stringify(check.examples)}` : ""}`,
    );
  }
  process.exit(result.checks.every((check) => check.ok) ? 0 : 1);
}
