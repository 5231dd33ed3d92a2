// PGlite answers `query()` with six separate calls into its WebAssembly Postgres (parse, describe,
// bind, describe, execute, sync) and plans the statement every time: on the dashboard's library
// query that is two thirds of its cost. This keeps one named prepared statement per query text,
// as node-postgres does with named queries, and runs it in a single call (bind, execute, sync):
// Postgres plans it once, and the columns' description, read when the statement is prepared, is
// not asked for and decoded again on every run (on a row of twenty columns that was a third of
// the query's cost).
//
// The answer is read here, from Postgres's bytes, rather than by PGlite's protocol parser, which
// copies every value of every row into an ArrayBuffer of its own before decoding it (on the
// session's query, a fifth of its cost); the few messages of a statement's preparation, and
// errors, still go through PGlite's parser.
//
// When PGlite has nothing of its own under way, a statement runs at once: the whole exchange is
// one synchronous call, so nothing can come between its parts. While PGlite is busy (a
// `transaction()`, which is PGlite's own, or any other call on the client) statements wait for it
// exactly as `query()` does (the same two locks, in the same order), and later ones queue behind.
import { protocol, type parse, type ParserOptions, type PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";

const { serialize, Parser } = protocol;
type BackendMessage = Parameters<typeof parse.parseResults>[0][number];
type Parsers = Parameters<typeof parse.parseResults>[1];
type Field = { name: string; dataTypeID: number };

/** Distinct query texts kept prepared; beyond them queries take PGlite's own way. */
const MAX_STATEMENTS = 1000;
/** "cached plan must not change result type": the schema changed under a prepared statement. */
const PLAN_INVALIDATED = "0A000";

/** Backend message types read here (the first byte of each message). */
const DATA_ROW = 0x44; // D
const COMMAND_COMPLETE = 0x43; // C
const ERROR_RESPONSE = 0x45; // E
const READY_FOR_QUERY = 0x5a; // Z
/** ReadyForQuery is the last message of every answer: type, length 5, status. */
const READY_FOR_QUERY_LENGTH = 6;
/** Execute (the unnamed portal, every row) then Sync: the same bytes for every run. */
const EXECUTE_AND_SYNC = Buffer.concat([serialize.execute({}), serialize.sync()]);
/** The commands whose tag ends in the number of rows they changed (as PGlite counts them). */
const CHANGING_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"]);

type Statement = {
  /** The statement's name, NUL-terminated, as Bind carries it. */
  name: Buffer;
  paramTypes: number[];
  /** The columns of its rows; none for a statement that returns no rows. */
  fields: Field[];
};

/**
 * Bind (the unnamed portal: every parameter as text, or bytes a serializer made; every result
 * column as text), then Execute and Sync: one run of a prepared statement, in one buffer.
 */
function runMessage(statement: Buffer, values: (string | Uint8Array | null)[]): Buffer {
  const encoded = values.map((value) => (typeof value === "string" ? Buffer.from(value) : value));
  const length = 4 + 1 + statement.length + 2 + 2 + encoded.reduce((sum, value) => sum + 4 + (value?.length ?? 0), 0) + 2;
  const message = Buffer.allocUnsafe(1 + length + EXECUTE_AND_SYNC.length);
  let at = message.writeUInt8(0x42, 0); // B
  at = message.writeInt32BE(length, at);
  at = message.writeUInt8(0, at); // the unnamed portal
  at += statement.copy(message, at);
  at = message.writeInt16BE(0, at); // no parameter format codes: all text
  at = message.writeInt16BE(encoded.length, at);
  for (const value of encoded) {
    at = message.writeInt32BE(value === null ? -1 : value.length, at);
    if (value === null) continue;
    message.set(value, at);
    at += value.length;
  }
  at = message.writeInt16BE(0, at); // no result format codes: all text
  EXECUTE_AND_SYNC.copy(message, at);
  return message;
}

/** A statement's answer read as PGlite's parseResults reads it: rows, and the rows changed. */
function resultsOf<T>(answer: Buffer, fields: Field[], parsers: Parsers, asArrays: boolean): Results<T> {
  const parseField = fields.map(({ dataTypeID }) => {
    const parser = parsers[dataTypeID];
    return parser ? (text: string) => parser(text, dataTypeID) : (text: string) => text;
  });
  const rows: unknown[] = [];
  const results = { rows, fields, affectedRows: 0 } as Results<T> & { command?: string; rowCount?: number };
  for (let at = 0; at < answer.length;) {
    const type = answer[at]!;
    const end = at + 1 + answer.readInt32BE(at + 1);
    if (type === DATA_ROW) {
      const count = answer.readInt16BE(at + 5);
      const row: unknown[] | Record<string, unknown> = asArrays ? new Array<unknown>(count) : {};
      let cursor = at + 7;
      for (let i = 0; i < count; i++) {
        const length = answer.readInt32BE(cursor);
        cursor += 4;
        const value = length < 0 ? null : parseField[i]!(answer.toString("utf8", cursor, (cursor += length)));
        if (asArrays) (row as unknown[])[i] = value;
        else (row as Record<string, unknown>)[fields[i]!.name] = value;
      }
      rows.push(row);
    } else if (type === COMMAND_COMPLETE) {
      const tag = answer.toString("utf8", at + 5, end - 1).split(" ");
      const rowCount = parseInt(tag.at(-1)!, 10);
      results.command = tag[0];
      if (CHANGING_COMMANDS.has(tag[0]!)) results.affectedRows = rowCount;
      if (!Number.isNaN(rowCount)) results.rowCount = rowCount;
    } else if (type === ERROR_RESPONSE) {
      throw messagesOf(answer).find((m) => m instanceof Error);
    }
    at = end;
  }
  return results;
}

/** Postgres's backend messages, parsed by PGlite's own parser (preparing, and errors). */
function messagesOf(answer: Uint8Array): BackendMessage[] {
  const messages: BackendMessage[] = [];
  new Parser().parse(answer, (message) => messages.push(message));
  return messages;
}

/** The client Drizzle is given: PGlite, with `query` running prepared statements. */
export function withPreparedStatements(client: PGlite): PGlite {
  const statements = new Map<string, Statement>();
  let prepared = 0;
  /** Calls on the client still under way (PGlite's own, and statements waiting for them). */
  let busy = 0;
  /**
   * A query's own parsers are laid over PGlite's ~300 without copying them (PGlite's parseResults
   * copies them all into a new object on every query, a third of a small query's cost): an object
   * holding only the query's own,
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

  /**
   * Sends one batch of messages ending in Sync and returns Postgres's whole answer, synchronously.
   * The file systems the portal gives PGlite (a folder, or memory) have nothing to sync afterwards.
   */
  function exchange(message: Uint8Array): Buffer {
    const parts: Uint8Array[] = [];
    // The bytes handed over are a view of PGlite's memory, valid only during the call.
    const done = client.execProtocolRawStream(message, { syncToFs: false, onRawData: (bytes) => void parts.push(bytes.slice()) });
    // Its work is done by now; the promise can only carry an exception, seen below as no answer.
    done.catch(() => {});
    const answer = Buffer.concat(parts);
    if (answer.length < READY_FOR_QUERY_LENGTH || answer[answer.length - READY_FOR_QUERY_LENGTH] !== READY_FOR_QUERY)
      throw new Error("PGlite stopped before answering the statement");
    return answer;
  }

  function prepare(text: string): Statement {
    const name = `portal_${++prepared}`;
    const messages = messagesOf(
      exchange(Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()])),
    );
    const error = messages.find((m) => m instanceof Error);
    if (error) throw error;
    const parameters = messages.find((m) => m.name === "parameterDescription") as { dataTypeIDs?: number[] } | undefined;
    const columns = messages.find((m) => m.name === "rowDescription") as { fields: Field[] } | undefined;
    const statement = {
      name: Buffer.from(`${name}\0`),
      paramTypes: parameters?.dataTypeIDs ?? [],
      fields: columns?.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })) ?? [],
    };
    statements.set(text, statement);
    return statement;
  }

  /** Runs a prepared statement. */
  function run<T>(statement: Statement, params: unknown[], options?: QueryOptions): Results<T> {
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const type = statement.paramTypes[i]!;
      const serializer = options?.serializers?.[type] ?? client.serializers[type];
      return serializer ? (serializer(value) as string | Uint8Array) : String(value);
    });
    const answer = exchange(runMessage(statement.name, values));
    return resultsOf<T>(answer, statement.fields, parsersFor(options?.parsers), options?.rowMode === "array");
  }

  /** Prepares (once) and runs, now: only while PGlite has nothing of its own under way. */
  function runNow<T>(text: string, params: unknown[], options?: QueryOptions): Results<T> {
    const known = statements.get(text);
    try {
      return run<T>(known ?? prepare(text), params, options);
    } catch (error) {
      if (!known || (error as { code?: string }).code !== PLAN_INVALIDATED) throw error;
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
