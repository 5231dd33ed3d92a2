// Opens the database: a PostgreSQL pool when a URL is given, the embedded PGlite otherwise.
// Both speak the same SQL and expose the same Drizzle API, so nothing above this file knows
// which one it is talking to.
import { PGlite } from "@electric-sql/pglite";
import { ConfigError, type Config } from "#server/config.ts";
import { checkWritable, describeThrown, prepareDataDir } from "./data-dir.ts";
import { withPreparedStatements } from "./pglite-statements.ts";
import { asPglite, openPgliteThread, type PgliteClient } from "./pglite-thread.ts";
import { takeSnapshot } from "./pglite-snapshot.ts";
import type { Logger as DrizzleLogger } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { forTransactionPooler, pooledTimeoutsDiffering } from "./pooler.ts";
import { reconnecting, reconnectingDatabase } from "./reconnecting-pool.ts";
import { ANSWER_MARGIN_MS, DEFAULT_DATABASE_TIMEOUTS, KEEP_ALIVE_DELAY_MS, type DatabaseTimeouts } from "./timeouts.ts";
import * as schema from "./schema/index.ts";
import type { Metrics } from "#server/metrics.ts";
import { MIGRATIONS_FOLDER } from "./schema-version.ts";

type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export type DatabaseHandle = {
  db: Database;
  kind: "postgres" | "pglite";
  /**
   * Runs `work` while holding a PostgreSQL advisory lock on one connection, so that two
   * instances starting at once migrate and seed one after the other.
   */
  withStartupLock<T>(work: (db: Database) => Promise<T>): Promise<T>;
  /** Applies the committed SQL migrations on the given connection. */
  migrate(db: Database): Promise<void>;
  /**
   * Behind a pooler in transaction mode, the timeouts a statement outside a transaction runs with
   * (the role's defaults) where they differ from this handle's, as `setting: found (configured)`;
   * none elsewhere, where the timeouts are the session's (pooler.ts).
   */
  timeoutsDifferingOutsideTransactions(): Promise<string[]>;
  /** Answers whether the database reads, and writes, now; fails when it does not answer in time. */
  ping(): Promise<void>;
  /** The pool's connections now (PostgreSQL); null for the embedded database, which has none. */
  poolState(): { inUse: number; idle: number; waiting: number } | null;
  /**
   * The embedded database on disk: a consistent copy of its folder as a gzipped tarball, taken
   * between statements with no transaction open (pglite-snapshot.ts). PostgreSQL has pg_dump.
   */
  snapshot?: () => Promise<Uint8Array>;
  close(): Promise<void>;
};

export type OpenDatabaseOptions =
  | {
      url: string;
      poolMax?: number;
      logger?: DrizzleLogger;
      /**
       * Connection errors that did not fail a request: idle connections the server ended, and
       * outages waited out (a restart, the network dropping).
       */
      onConnectionError?: (error: Error) => void;
      /** Every wait's bound (timeouts.ts); the defaults for those not given. */
      timeouts?: Partial<DatabaseTimeouts>;
      /** Where the outages waited out are counted (server/metrics.ts). */
      metrics?: Metrics;
      /** `transaction`: `url` is a pooler in transaction mode (pooler.ts). */
      pooler?: "none" | "transaction";
      /** Where `withStartupLock` connects: PostgreSQL itself, one session (default: `url`). */
      directUrl?: string;
    }
  /**
   * `dataDir` undefined keeps the PGlite database in memory (tests). `ownThread`: PGlite runs in a
   * worker thread (the server, which renders pages meanwhile; pglite-thread.ts), not in this one.
   */
  | { url?: undefined; dataDir: string | undefined; ownThread?: boolean; logger?: DrizzleLogger };

/**
 * What opens the configured database: PostgreSQL (DATABASE_URL, maybe through a pooler) with a pool
 * of `poolMax` (DATABASE_POOL_MAX unless told), or the embedded PGlite in DATA_DIR.
 */
export function configuredDatabase(
  database: Config["database"],
  {
    poolMax = database.poolMax,
    onConnectionError,
    ownThread,
    metrics,
  }: { poolMax?: number; onConnectionError?: (error: Error) => void; ownThread?: boolean; metrics?: Metrics } = {},
): OpenDatabaseOptions {
  if (!database.url) return { dataDir: database.pgliteDir, ownThread };
  const { url, pooler, directUrl, timeouts } = database;
  return { url, pooler, directUrl, timeouts, poolMax, onConnectionError, metrics };
}

/** Arbitrary constant shared by every instance: the key of the start-up advisory lock. */
const STARTUP_LOCK_KEY = 7_402_118_311;

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.url !== undefined) return openPostgres(options);
  const { dataDir, ownThread, logger } = options;
  if (dataDir) await prepareEmbeddedFolder(dataDir);
  let client: PgliteClient;
  let snapshot: () => Promise<Uint8Array>;
  try {
    if (ownThread) {
      const thread = await openPgliteThread(dataDir);
      client = thread;
      snapshot = () => thread.snapshot();
    } else {
      // In this thread, every call goes through the wrapper, which must know when PGlite is busy.
      // A process that holds the database alone (an operator's) takes its snapshot between its own calls.
      const pglite = withPreparedStatements(await PGlite.create(dataDir));
      client = pglite;
      snapshot = () => takeSnapshot(pglite);
    }
  } catch (error) {
    const where = dataDir ?? "memory";
    throw new ConfigError(`The embedded database in ${where} (DATA_DIR) could not be opened: ${describeThrown(error)}`, {
      cause: error,
    });
  }
  const handle = pgliteHandle(client, dataDir, logger);
  return dataDir ? { ...handle, snapshot } : handle;
}

/**
 * Makes the embedded database's folder if need be and checks that it takes writes, saying what is
 * wrong in one line naming the setting: on a full or read-only folder PGlite's own failure names
 * nothing ('[object Object]', 'PGlite failed to initialize properly').
 */
export async function prepareEmbeddedFolder(dataDir: string): Promise<void> {
  await prepareDataDir(dataDir).catch((error: Error) => {
    throw new ConfigError(`The embedded database's folder (DATA_DIR): ${error.message}`, { cause: error });
  });
}

function openPostgres({
  url,
  poolMax = 10,
  logger,
  onConnectionError,
  timeouts: given,
  metrics,
  pooler = "none",
  directUrl = url,
}: Extract<OpenDatabaseOptions, { url: string }>): DatabaseHandle {
  const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...given };
  const connection = {
    connectionTimeoutMillis: timeouts.connectMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
  };
  // Directly, the timeouts are the session's, given at connect time; a pooler in transaction mode
  // refuses them there, and each transaction sets its own (pooler.ts).
  const sessionTimeouts = {
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
  };
  const pool = new pg.Pool({
    ...connection,
    connectionString: url,
    max: poolMax,
    ...(pooler === "transaction" ? {} : sessionTimeouts),
    query_timeout: timeouts.statementMs + ANSWER_MARGIN_MS,
  });
  const connectWithoutWaiting = pool.connect.bind(pool);
  const outages = {
    outageWaitMs: timeouts.outageWaitMs,
    onRetry(error: Error) {
      metrics?.db.retries.inc();
      onConnectionError?.(error);
    },
    onWaitedOut: () => metrics?.db.outagesWaitedOut.inc(),
  };
  reconnecting(pool, outages);
  if (pooler === "transaction") pool.on("connect", (client) => forTransactionPooler(client, timeouts));
  // Without a listener an idle connection's error would crash the process; the pool drops
  // that connection and opens a new one for the next query.
  pool.on("error", (error) => onConnectionError?.(error));
  // A connection checked out of the pool (a transaction between two statements, a lock held)
  // has no pool listener: PostgreSQL ending it then (a restart: 57P01) would be an unhandled
  // 'error' event, which kills the process. The connection's work fails instead (its next
  // statement rejects), and the pool discards it on release, as it is no longer queryable.
  pool.on("connect", (client) => client.on("error", (error) => onConnectionError?.(error)));
  const db = drizzlePg({ client: pool, schema, logger });
  reconnectingDatabase(db, outages);
  return {
    db,
    kind: "postgres",
    async withStartupLock(work) {
      // A connection of its own, to PostgreSQL itself (the lock is the session's), without the
      // pool's statement and lock timeouts (nor the role's): it waits for another instance's
      // migration to end, and a migration may rewrite a large table.
      const client = new pg.Client({ ...connection, connectionString: directUrl });
      client.on("error", (error) => onConnectionError?.(error));
      await client.connect();
      try {
        await client.query("set statement_timeout = 0; set lock_timeout = 0; set idle_in_transaction_session_timeout = 0");
        await client.query("select pg_advisory_lock($1)", [STARTUP_LOCK_KEY]);
        try {
          return await work(drizzlePg({ client, schema, logger }));
        } finally {
          await client.query("select pg_advisory_unlock($1)", [STARTUP_LOCK_KEY]);
        }
      } finally {
        await client.end();
      }
    },
    migrate: (conn) => migratePg(conn as Parameters<typeof migratePg>[0], { migrationsFolder: MIGRATIONS_FOLDER }),
    timeoutsDifferingOutsideTransactions: async () => (pooler === "transaction" ? pooledTimeoutsDiffering(db, timeouts) : []),
    // Readiness says how the database is now: it does not wait an outage out, and a database
    // that does not answer within the connect timeout is not ready.
    ping: () => withinTime(timeouts.connectMs, () => pingOnce(connectWithoutWaiting, timeouts.connectMs)),
    poolState: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

/** One `select 1` on a pooled connection; a connection that failed is dropped. */
async function pingOnce(connect: () => Promise<pg.PoolClient>, answerMs: number): Promise<void> {
  const client = await connect();
  let readOnly: string | undefined;
  try {
    // A server that takes no writes (a standby after a failover, or one made read-only while its
    // disk is full) answers reads: readiness asks whether it would take a write.
    const { rows } = await client.query({
      text: "select current_setting('transaction_read_only') as read_only",
      query_timeout: answerMs,
    } as pg.QueryConfig);
    readOnly = rows[0]?.read_only;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  client.release();
  if (readOnly === "on") throw new Error("PostgreSQL takes no writes (transaction_read_only is on)");
}

/** `work`, or a rejection once `ms` have passed (the work goes on, and cleans up after itself). */
async function withinTime<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A PGlite database, in this thread or its own: Drizzle uses its `query` and `transaction`. */
function pgliteHandle(client: PgliteClient, dataDir: string | undefined, logger?: DrizzleLogger): DatabaseHandle {
  const db = drizzlePglite({ client: asPglite(client), schema, logger });
  return {
    db,
    kind: "pglite",
    async withStartupLock(work) {
      // PGlite is one connection in one process; the lock keeps the code path identical.
      await client.query("select pg_advisory_lock($1)", [STARTUP_LOCK_KEY]);
      try {
        return await work(db);
      } finally {
        await client.query("select pg_advisory_unlock($1)", [STARTUP_LOCK_KEY]);
      }
    },
    migrate: (conn) => migratePglite(conn as Parameters<typeof migratePglite>[0], { migrationsFolder: MIGRATIONS_FOLDER }),
    timeoutsDifferingOutsideTransactions: async () => [],
    // Reads answering is not enough: on a full or read-only disk every write fails, and an
    // instance that cannot sign anyone in must leave the balancer's rotation.
    async ping() {
      await client.query("select 1");
      if (dataDir) await checkWritable(dataDir);
    },
    poolState: () => null,
    close: () => client.close(),
  };
}

/** A transaction, as Drizzle hands it to `db.transaction(async (tx) => …)`. */
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** Either: for queries that may run inside a caller's transaction or on their own. */
export type Queryable = Database | Transaction;
