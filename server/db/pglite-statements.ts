// PGlite answers `query()` with six separate calls into its WebAssembly Postgres (parse, describe,
// bind, describe, execute, sync) and plans the statement every time: on the dashboard's library
// query that is two thirds of its cost. This keeps one named prepared statement per query text,
// as node-postgres does with named queries, and runs it in a single call (bind, describe,
// execute, sync): Postgres plans it once.
//
// Only queries outside a transaction go this way: `transaction()` is PGlite's own, and while one
// runs these wait for it exactly as `query()` does (the same two locks, in the same order).
import { parse, protocol, type PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";

const { serialize } = protocol;

/** Distinct query texts kept prepared; beyond them queries take PGlite's own way. */
const MAX_STATEMENTS = 1000;
/** "cached plan must not change result type": the schema changed under a prepared statement. */
const PLAN_INVALIDATED = "0A000";

type Statement = { name: string; paramTypes: number[] };

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

  /** Runs while no transaction or other query holds the database, as PGlite's `query` does. */
  const exclusive = <T>(work: () => Promise<T>) => client._runExclusiveTransaction(() => client._runExclusiveQuery(work));

  async function prepare(text: string): Promise<Statement> {
    const name = `portal_${++prepared}`;
    const { messages } = await client.execProtocol(
      concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    );
    const parameters = messages.find((m) => m.name === "parameterDescription") as { dataTypeIDs?: number[] } | undefined;
    const statement = { name, paramTypes: parameters?.dataTypeIDs ?? [] };
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
      concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: !client.isInTransaction() },
    );
    return parse.parseResults(messages, client.parsers, options)[0] as Results<T>;
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
