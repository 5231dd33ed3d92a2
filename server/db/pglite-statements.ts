// PGlite answers `query()` with six separate calls into its WebAssembly Postgres (parse, describe,
// bind, describe, execute, sync) and plans the statement every time: on the dashboard's library
// query that is two thirds of its cost. This client keeps one named prepared statement per query
// text and runs it in a single call (pglite-protocol.ts), on PGlite in this thread (tests and the
// operators' commands; the server runs PGlite in a thread of its own, pglite-thread.ts).
//
// When PGlite has nothing of its own under way, a statement runs at once: the whole exchange is
// one synchronous call, so nothing can come between its parts. While PGlite is busy (a
// `transaction()`, which is PGlite's own, or any other call on the client) statements wait for it
// exactly as `query()` does (the same two locks, in the same order), and later ones queue behind.
import type { PGlite, QueryOptions, Results } from "@electric-sql/pglite";
import {
  exchange,
  layeredParsers,
  MAX_STATEMENTS,
  planInvalidated,
  prepareMessage,
  resultsOf,
  runMessageFor,
  statementOf,
  type Statement,
} from "./pglite-protocol.ts";

/** The client Drizzle is given: PGlite, with `query` running prepared statements. */
export function withPreparedStatements(client: PGlite): PGlite {
  const statements = new Map<string, Statement>();
  let prepared = 0;
  /** Calls on the client still under way (PGlite's own, and statements waiting for them). */
  let busy = 0;
  const parsersFor = layeredParsers(client.parsers);

  function prepare(text: string): Statement {
    const name = `portal_${++prepared}`;
    const statement = statementOf(name, exchange(client, prepareMessage(name, text)));
    statements.set(text, statement);
    return statement;
  }

  /** Runs a prepared statement. */
  function run<T>(statement: Statement, params: unknown[], options?: QueryOptions): Results<T> {
    const answer = exchange(client, runMessageFor(statement, params, client.serializers, options));
    return resultsOf<T>(answer, statement, parsersFor(options?.parsers), options);
  }

  /** Prepares (once) and runs, now: only while PGlite has nothing of its own under way. */
  function runNow<T>(text: string, params: unknown[], options?: QueryOptions): Results<T> {
    const known = statements.get(text);
    try {
      return run<T>(known ?? prepare(text), params, options);
    } catch (error) {
      if (!known || !planInvalidated(error)) throw error;
      statements.delete(text);
      return run<T>(prepare(text), params, options);
    }
  }

  /** A call on the client counted as under way until it settles. */
  function tracked<T>(work: () => T): T {
    const result = work();
    if (result instanceof Promise) {
      busy++;
      const settled = () => void busy--;
      result.then(settled, settled);
    }
    return result;
  }

  /** Whether a query text is (or may still be) kept prepared. */
  const preparable = (text: string) => statements.has(text) || statements.size < MAX_STATEMENTS;

  async function query<T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    if (busy === 0 && client.ready && preparable(text)) return runNow<T>(text, params, options);
    return tracked(async () => {
      await client.waitReady;
      if (!preparable(text)) return client.query<T>(text, params, options);
      return client._runExclusiveTransaction(() => client._runExclusiveQuery(async () => runNow<T>(text, params, options)));
    });
  }

  // Everything else is PGlite's own (its methods keep PGlite as `this`: they use private state),
  // counted while under way.
  return new Proxy(client, {
    get(target, property) {
      if (property === "query") return query;
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => tracked(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}
