// The load's proof that a backup restores (docs/operating.md, "Back up and restore"): in the middle
// of the run, while the instances serve, `npm run admin -- backup` (pg_dump) copies the private
// cluster's database; after the run, `npm run admin -- restore` puts the copy into a new database of
// the same cluster, a third instance of the portal starts on it, and the load's own checks run on the
// restored data, for what was committed before the backup:
// - the rules that hold at every moment (invariants.ts, `atAnyInstant`): every paid order one
//   checkout payment, one charge at the gateway and its access; no month charged twice; no code
//   used beyond its uses, uses equal to redemptions, each redemption with its order and access;
// - what the customers had been told before the backup began (the ledger as it was then): every
//   order seen confirmed is paid, every code seen activated is theirs, every EDU bought is a live
//   subscription;
// - the restored portal is ready, and sessions made before the backup open its dashboard.
// Work under way at the backup's moment (a month being charged, a payment between its charge and
// its record) is counted, not failed: the restored portal finishes it once its leases run out, as
// after any crash.
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Database } from "#server/db/client.ts";
import * as schema from "#server/db/schema/index.ts";
import { freePort } from "#scripts/bench/server.ts";
import type { Ledger } from "./customers.ts";
import { Instance } from "./instances.ts";
import { databaseChecks, ledgerChecks, pendingWork, type Check } from "./invariants.ts";

/** Sessions made before the backup that the restored portal is asked for the dashboard with. */
const SESSIONS_TRIED = 10;

/** `npm run admin -- <args> --actor load-and-faults --yes`, with the run's settings; its stdout. */
export function runAdminCommand(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/admin.ts", ...args, "--actor", "load-and-faults", "--yes"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`npm run admin -- ${args[0]} failed (exit ${code}): ${stderr.trim() || stdout.trim()}`));
    });
  });
}

export type MidRunBackup = {
  file: string;
  /** When it began, ms since the run's epoch, and how long it took. */
  at: number;
  ms: number;
  bytes: number;
  /** What the customers had been told when it began (what the restored data must hold). */
  ledger: Ledger;
  /** What the command printed. */
  said: string;
};

/** The backup, taken now through the operators' command; the ledger as it stood just before. */
export async function takeBackup(env: NodeJS.ProcessEnv, file: string, ledger: Ledger, at: number): Promise<MidRunBackup> {
  // Copied before pg_dump starts, so that everything in it was committed before its snapshot.
  const told: Ledger = {
    sessions: [...ledger.sessions],
    visits: [],
    activations: ledger.activations.filter((a) => a.outcome === "activated").map((a) => ({ ...a })),
    purchases: ledger.purchases.filter((p) => p.outcome === "confirmed").map((p) => ({ ...p })),
    eduBought: [...ledger.eduBought],
  };
  const started = performance.now();
  const said = await runAdminCommand(env, ["backup", "--out", file]);
  const ms = performance.now() - started;
  return { file, at, ms, bytes: statSync(file).size, ledger: told, said: said.trim().split("\n")[0]! };
}

export type RestoreProof = {
  checks: Check[];
  figures: {
    restoreMs: number;
    readyMs: number;
    /** Work under way at the backup's moment, as the restored data shows it. */
    underWay: { months: number; charging: number; attempts: number };
    database: Record<string, number>;
    told: { confirmedPurchases: number; activations: number; eduBought: number };
    sessionsTried: number;
  };
};

/**
 * The backup restored into a new database of the run's cluster, a portal started on it, and the
 * load's checks on what it holds. `serverUrl`: the cluster's (any database of it); `env`: the
 * instances' settings; `backupAt`: the backup's moment (the months due before it).
 */
export async function proveRestore(opts: {
  serverUrl: string;
  env: NodeJS.ProcessEnv;
  backup: MidRunBackup;
  backupAt: Date;
  maxUses: Map<string, number>;
  onInstance(instance: Instance): void;
}): Promise<RestoreProof> {
  const { serverUrl, env, backup, backupAt } = opts;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query("create database portal_restored");
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = "/portal_restored";
  const restoredEnv = { ...env, DATABASE_URL: url.toString() };

  let started = performance.now();
  await runAdminCommand(restoredEnv, ["restore", backup.file]);
  const restoreMs = performance.now() - started;

  const pool = new pg.Pool({ connectionString: url.toString(), max: 2, connectionTimeoutMillis: 5_000 });
  const db = drizzle({ client: pool, schema }) as unknown as Database;
  try {
    // Read before the restored portal's job runner starts finishing it.
    const underWay = await pendingWork(db, backupAt);
    const instance = new Instance(2, await freePort(), restoredEnv);
    opts.onInstance(instance);
    started = performance.now();
    await instance.start();
    const readyMs = performance.now() - started;
    try {
      return await checkRestored(db, instance, { ...opts, restoreMs, readyMs, underWay });
    } finally {
      // Out of the way of what the run measures next.
      await instance.stop();
    }
  } finally {
    await pool.end();
  }
}

type Restored = {
  env: NodeJS.ProcessEnv;
  backup: MidRunBackup;
  backupAt: Date;
  maxUses: Map<string, number>;
  restoreMs: number;
  readyMs: number;
  underWay: RestoreProof["figures"]["underWay"];
};

/** The load's checks on the restored data, and the portal on it asked for its dashboard. */
async function checkRestored(db: Database, instance: Instance, restored: Restored): Promise<RestoreProof> {
  const { env, backup, backupAt, maxUses, restoreMs, readyMs, underWay } = restored;
  const { checks: instant, figures } = await databaseChecks(db, backupAt, { atAnyInstant: true });
  const told = await ledgerChecks(db, backup.ledger, env.ACTIVATION_CODE_KEY!, maxUses);
  const tried = backup.ledger.sessions.slice(-SESSIONS_TRIED);
  const opened = await Promise.all(
    tried.map(async (session) => {
      const res = await fetch(`http://127.0.0.1:${instance.port}/dashboard/`, {
        redirect: "manual",
        headers: { cookie: session.cookie },
      });
      await res.arrayBuffer();
      return res.status === 200;
    }),
  );
  const closed = opened.filter((ok) => !ok).length;
  const checks: Check[] = [...instant, ...told].map((c) => ({ ...c, label: `restored: ${c.label}` }));
  checks.push({
    label: `restored: sessions made before the backup that do not open the dashboard of a portal on the copy (of ${tried.length})`,
    value: closed,
    want: 0,
    ok: closed === 0,
  });
  checks.push({
    label: "restored: exits of the portal on the copy nobody asked for",
    value: instance.unexpectedExits.length,
    want: 0,
    ok: instance.unexpectedExits.length === 0,
  });
  return {
    checks,
    figures: {
      restoreMs,
      readyMs,
      underWay,
      database: figures,
      told: {
        confirmedPurchases: backup.ledger.purchases.length,
        activations: backup.ledger.activations.length,
        eduBought: backup.ledger.eduBought.length,
      },
      sessionsTried: tried.length,
    },
  };
}
