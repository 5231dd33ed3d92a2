// PGlite in a thread of its own, for the server. PGlite's Postgres is WebAssembly that runs in the
// thread that calls it: in the server's own thread, every statement of every request (~0.3–0.6 ms
// each under load) stopped the rendering of every other page. Here the worker
// (pglite-thread.worker.ts) only runs Postgres; this thread writes each statement's bytes and reads
// its answer (pglite-protocol.ts), as it would with node-postgres, and the machine's other core
// runs the database meanwhile.
//
// The worker answers in the order it was asked, one exchange at a time, so a statement sent while
// no transaction is open runs outside any. A transaction holds the connection: statements of
// others wait until it ends (as they do in PGlite's own `query()`), and it begins only after what
// was sent before it. A snapshot (an operator's backup) is sent the same way, once no transaction
// is open: the worker takes it between the statements before it and those after.
import { Worker } from "node:worker_threads";
import {
  TransactionAbortedError,
  types,
  type PGlite,
  type QueryOptions,
  type Results,
  type Transaction,
} from "@electric-sql/pglite";
import {
  closeMessage,
  layeredParsers,
  MAX_STATEMENTS,
  planInvalidated,
  prepareMessage,
  resultsOf,
  runMessageFor,
  statementOf,
  type Parsers,
  type Serializers,
  type Statement,
} from "./pglite-protocol.ts";
import type { FromWorker, ToWorker } from "./pglite-thread.worker.ts";

type Query = <T>(text: string, params?: unknown[], options?: QueryOptions) => Promise<Results<T>>;
/** What Drizzle's PGlite driver uses of a client: `query`, and `transaction` with a `query` of its own. */
export type PgliteClient = {
  query: Query;
  transaction<T>(work: (tx: Pick<Transaction, "query">) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};
/** The server's client: also takes a snapshot of the database (pglite-snapshot.ts) between statements. */
export type PgliteThread = PgliteClient & {
  /** Once no transaction is open: a checkpoint, then the data folder as a gzipped tarball. */
  snapshot(): Promise<Uint8Array>;
};

/** PGlite on `dataDir` (undefined: in memory), in a worker thread. */
export async function openPgliteThread(dataDir: string | undefined): Promise<PgliteThread> {
  const worker = new Worker(new URL("./pglite-thread.worker.ts", import.meta.url), { workerData: { dataDir } });
  const waiting: { resolve(answer: Buffer): void; reject(error: Error): void }[] = [];
  let stopped: Error | null = null;
  const stop = (error: Error) => {
    stopped ??= error;
    for (const request of waiting.splice(0)) request.reject(stopped);
  };

  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the database thread stopped while opening (exit ${code})`));
    worker.once("error", reject);
    worker.once("exit", onExit);
    worker.once("message", (reply: FromWorker) => {
      worker.off("error", reject);
      worker.off("exit", onExit);
      // The worker's first word is "ready" or why it could not open the database.
      if ("failed" in reply) reject(new Error(`the database thread could not open ${dataDir ?? "memory"}: ${reply.failed}`));
      else resolve();
    });
  });
  worker.on("message", (reply: FromWorker) => {
    const request = waiting.shift();
    if ("answer" in reply) request?.resolve(Buffer.from(reply.answer.buffer, reply.answer.byteOffset, reply.answer.byteLength));
    else if ("error" in reply) request?.reject(new Error(`the database thread: ${reply.error}`));
    else request?.resolve(Buffer.alloc(0)); // closed
  });
  worker.on("error", stop);
  worker.on("exit", (code) => stop(new Error(`the database thread stopped (exit ${code})`)));

  function send(toWorker: ToWorker): Promise<Buffer> {
    if (stopped) return Promise.reject(stopped);
    return new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      if (!("message" in toWorker)) return worker.postMessage(toWorker);
      // A copy of its own, handed over (a Buffer may share its memory with others).
      const message = new Uint8Array(toWorker.message);
      worker.postMessage({ message }, [message.buffer]);
    });
  }

  const serializers: Serializers = { ...types.serializers };
  const baseParsers: Parsers = { ...types.parsers };
  const parsersFor = layeredParsers(baseParsers);
  const statements = new Map<string, Statement>();
  const preparing = new Map<string, Promise<Statement>>();
  let prepared = 0;

  /**
   * Prepares a text: once, however many ask at the same time, while fewer than MAX_STATEMENTS are
   * kept; beyond them, each run prepares its own and closes it after (so none closes another's).
   */
  function prepare(text: string): Promise<Statement> {
    const pending = preparing.get(text);
    if (pending) return pending;
    const name = `portal_${++prepared}`;
    const statement = send({ message: prepareMessage(name, text) }).then((answer) => statementOf(name, answer));
    if (statements.size >= MAX_STATEMENTS) return statement;
    preparing.set(text, statement);
    statement.then(
      (ready) => {
        preparing.delete(text);
        statements.set(text, ready);
      },
      () => preparing.delete(text),
    );
    return statement;
  }

  /** Sends a prepared statement's run now (and its closing, if it is not kept); its results. */
  async function runPrepared<T>(text: string, statement: Statement, params: unknown[], options?: QueryOptions) {
    const answer = send({ message: runMessageFor(statement, params, serializers, options) });
    if (statements.get(text) !== statement) void send({ message: closeMessage(statement) }).catch(() => {});
    return resultsOf<T>(await answer, statement, parsersFor(options?.parsers), options);
  }

  /** The transaction holding the connection, until it ends. */
  let transaction: Promise<unknown> | null = null;

  /**
   * Runs a text, prepared first if need be. `outside`: only while no transaction holds the
   * connection (the run is sent in the same turn as that check, so none can begin in between).
   */
  async function execute<T>(text: string, params: unknown[], options: QueryOptions | undefined, outside: boolean) {
    for (let attempt = 1; ; attempt++) {
      let statement = statements.get(text);
      for (;;) {
        if (outside && transaction) await transaction.catch(() => {});
        else if (statement) break;
        else statement = await prepare(text);
      }
      try {
        return await runPrepared<T>(text, statement, params, options);
      } catch (error) {
        if (attempt > 1 || !planInvalidated(error)) throw error;
        // The schema changed under the statement: prepare it again.
        if (statements.get(text) === statement) statements.delete(text);
      }
    }
  }

  const client: PgliteThread = {
    query: (text, params = [], options) => execute(text, params, options, true),
    async transaction(work) {
      while (transaction) await transaction.catch(() => {});
      const inside: Query = (text, params = [], options) => execute(text, params, options, false);
      const held = (async () => {
        await inside("begin");
        try {
          const result = await work({ query: inside });
          const committed: { command?: string } = await inside("commit");
          // COMMIT answers ROLLBACK when the transaction had failed: PGlite's own transaction() throws this too.
          if (committed.command === "ROLLBACK") throw new TransactionAbortedError();
          return result;
        } catch (error) {
          if (!(error instanceof TransactionAbortedError)) await inside("rollback");
          throw error;
        }
      })();
      transaction = held;
      try {
        return await held;
      } finally {
        transaction = null;
      }
    },
    async snapshot() {
      // Sent in the same turn as the check: no transaction can begin in between, and statements
      // sent after it are answered after the snapshot.
      while (transaction) await transaction.catch(() => {});
      return send({ snapshot: true });
    },
    async close() {
      while (transaction) await transaction.catch(() => {});
      await send({ close: true });
      await worker.terminate();
    },
  };

  // Array types, as PGlite reads them when it starts: each array parsed and serialized by its element's rules.
  const arrays = await client.query<{ oid: number; typarray: number }>(
    `select b.oid, b.typarray from pg_catalog.pg_type a left join pg_catalog.pg_type b on b.oid = a.typelem
     where a.typcategory = 'A' group by b.oid, b.typarray order by b.oid`,
  );
  for (const { oid, typarray } of arrays.rows) {
    serializers[typarray] = (value) => types.arraySerializer(value, serializers[oid], typarray);
    baseParsers[typarray] = (value) => types.arrayParser(value, baseParsers[oid]!, typarray);
  }
  return client;
}

/** The client as Drizzle's PGlite driver takes it: PGlite's type, of which it uses `query` and `transaction`. */
export const asPglite = (client: PgliteClient) => client as unknown as PGlite;
