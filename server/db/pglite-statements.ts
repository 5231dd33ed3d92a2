// PGlite answers `query()` with six separate calls into its WebAssembly Postgres (parse, describe,
// bind, describe, execute, sync) and plans the statement every time: on the dashboard's library
// query that is two thirds of its cost. This keeps one named prepared statement per query text,
// as node-postgres does with named queries, and runs it in a single call (bind, execute, sync):
// Postgres plans it once, and the columns' description, read when the statement is prepared, is
// not asked for and decoded again on every run (on a row of twenty columns that was a third of
// the query's cost).
//
// Only queries outside a transaction go this way: `transaction()` is PGlite's own, and while one
// runs these wait for it exactly as `query()` does (the same two locks, in the same order).
import { parse, protocol, type ParserOptions, type PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";

const { serialize } = protocol;
type BackendMessage = Parameters<typeof parse.parseResults>[0][number];
type Parsers = Parameters<typeof parse.parseResults>[1];

/** Distinct query texts kept prepared; beyond them queries take PGlite's own way. */
const MAX_STATEMENTS = 1000;
/** "cached plan must not change result type": the schema changed under a prepared statement. */
const PLAN_INVALIDATED = "0A000";

type Statement = {
  name: string;
  paramTypes: number[];
  /** The statement's RowDescription message; none for a statement that returns no rows. */
  columns: BackendMessage | undefined;
};

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The client Drizzle is given: PGlite, with `query` running prepared statements. */
export function withPreparedStatements(client: PGlite): PGlite {
  const statements = new Map<string, Statement>();
  let prepared = 0;
  /**
   * PGlite's parseResults copies its ~300 type parsers into a new object to lay a query's own
   * parsers over them, on every query (a third of a small query's cost). Here a query's own
   * parsers are laid over PGlite's without copying them: an object holding only the query's own,
   * whose prototype is PGlite's (a type the query does not name is looked up there). A prepared
   * Drizzle query passes the same parsers object each time, so that is made once per object; a
   * query built for one request brings a new object, which costs its own few entries, not 300.
   * PGlite changes its parsers only when it starts and on refreshArrayTypes(), which the portal
   * never calls.
   */
  const mergedParsers = new WeakMap<ParserOptions, Parsers>();
  function parsersFor(own: ParserOptions | undefined): Parsers {
    if (!own) return client.parsers;
    let merged = mergedParsers.get(own);
    if (!merged) mergedParsers.set(own, (merged = Object.assign(Object.create(client.parsers) as Parsers, own)));
    return merged;
  }

  /** Runs while no transaction or other query holds the database, as PGlite's `query` does. */
  const exclusive = <T>(work: () => Promise<T>) => client._runExclusiveTransaction(() => client._runExclusiveQuery(work));

  async function prepare(text: string): Promise<Statement> {
    const name = `portal_${++prepared}`;
    const { messages } = await client.execProtocol(
      concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    );
    const parameters = messages.find((m) => m.name === "parameterDescription") as { dataTypeIDs?: number[] } | undefined;
    const columns = messages.find((m) => m.name === "rowDescription");
    const statement = { name, paramTypes: parameters?.dataTypeIDs ?? [], columns };
    statements.set(text, statement);
    return statement;
  }

  async function run<T>(statement: Statement, params: unknown[], options?: QueryOptions): Promise<Results<T>> {
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const type = statement.paramTypes[i]!;
      const serializer = options?.serializers?.[type] ?? client.serializers[type];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await client.execProtocol(
      concat([serialize.bind({ statement: statement.name, values }), serialize.execute({}), serialize.sync()]),
      { syncToFs: !client.isInTransaction() },
    );
    // The rows' columns as PGlite's parser expects them: described before the first row.
    const described = statement.columns ? [statement.columns, ...messages] : messages;
    const results = parse.parseResults(described, parsersFor(options?.parsers), options && { ...options, parsers: undefined });
    return results[0] as Results<T>;
  }

  async function query<T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    await client.waitReady;
    const known = statements.get(text);
    if (!known && statements.size >= MAX_STATEMENTS) return client.query<T>(text, params, options);
    return exclusive(async () => {
      const statement = known ?? (await prepare(text));
      try {
        return await run<T>(statement, params, options);
      } catch (error) {
        if ((error as { code?: string }).code !== PLAN_INVALIDATED) throw error;
        statements.delete(text);
        return run<T>(await prepare(text), params, options);
      }
    });
  }

  // Everything else is PGlite's own (its methods keep PGlite as `this`: they use private state).
  return new Proxy(client, {
    get(target, property) {
      if (property === "query") return query;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
