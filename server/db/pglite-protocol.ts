// Postgres's extended protocol as the portal speaks it to PGlite, whichever thread PGlite runs
// in (pglite-statements.ts: this one; pglite-thread.ts: a worker of its own). One named prepared
// statement per query text, as node-postgres does with named queries, run in a single exchange
// (bind, execute, sync): Postgres plans it once, and the columns' description, read when the
// statement is prepared, is not asked for and decoded again on every run.
//
// The answer is read here, from Postgres's bytes, rather than by PGlite's protocol parser, which
// copies every value of every row into an ArrayBuffer of its own before decoding it; the few
// messages of a statement's preparation, and errors, still go through PGlite's parser.
import { protocol, type parse, type ParserOptions, type PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";

const { serialize, Parser } = protocol;
type BackendMessage = Parameters<typeof parse.parseResults>[0][number];
export type Parsers = Parameters<typeof parse.parseResults>[1];
export type Serializers = PGlite["serializers"];
type Field = { name: string; dataTypeID: number };

/** Distinct query texts kept prepared; beyond them queries take PGlite's own way. */
export const MAX_STATEMENTS = 1000;
/** "cached plan must not change result type": the schema changed under a prepared statement. */
const PLAN_INVALIDATED = "0A000";

/** Whether a run failed because the schema changed under its statement (prepare it again). */
export const planInvalidated = (error: unknown) => (error as { code?: string } | null)?.code === PLAN_INVALIDATED;

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

export type Statement = {
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
export function resultsOf<T>(answer: Buffer, { fields }: Statement, parsers: Parsers, options?: QueryOptions): Results<T> {
  const asArrays = options?.rowMode === "array";
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

/** Parse and Describe of a named statement, then Sync: preparing it. */
export function prepareMessage(name: string, text: string): Buffer {
  return Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]);
}

/** Close of a prepared statement, then Sync: forgetting it. */
export function closeMessage(statement: Statement): Buffer {
  const name = statement.name.toString("utf8", 0, statement.name.length - 1);
  return Buffer.concat([serialize.close({ type: "S", name }), serialize.sync()]);
}

/** The statement a prepareMessage's answer describes; Postgres's error if it refused the text. */
export function statementOf(name: string, answer: Buffer): Statement {
  const messages = messagesOf(answer);
  const error = messages.find((m) => m instanceof Error);
  if (error) throw error;
  const parameters = messages.find((m) => m.name === "parameterDescription") as { dataTypeIDs?: number[] } | undefined;
  const columns = messages.find((m) => m.name === "rowDescription") as { fields: Field[] } | undefined;
  return {
    name: Buffer.from(`${name}\0`),
    paramTypes: parameters?.dataTypeIDs ?? [],
    fields: columns?.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })) ?? [],
  };
}

/** The run of a prepared statement with these parameters, each serialized by its type. */
export function runMessageFor(statement: Statement, params: unknown[], serializers: Serializers, options?: QueryOptions): Buffer {
  const values = params.map((value, i) => {
    if (value === null || value === undefined) return null;
    const type = statement.paramTypes[i]!;
    const serializer = options?.serializers?.[type] ?? serializers[type];
    return serializer ? (serializer(value) as string | Uint8Array) : String(value);
  });
  return runMessage(statement.name, values);
}

/**
 * A query's own parsers laid over the client's ~300 without copying them (PGlite's parseResults
 * copies them all into a new object on every query, a third of a small query's cost): an object
 * holding only the query's own, whose prototype is the client's (a type the query does not name is
 * looked up there). A prepared Drizzle query passes the same parsers object each time, so that is
 * made once per object; a query built for one request brings a new object, which costs its own few
 * entries, not 300. The client's parsers change only when PGlite starts (and on
 * refreshArrayTypes(), which the portal never calls).
 */
export function layeredParsers(base: Parsers): (own: ParserOptions | undefined) => Parsers {
  const layered = new WeakMap<ParserOptions, Parsers>();
  return (own) => {
    if (!own) return base;
    let parsers = layered.get(own);
    if (!parsers) layered.set(own, (parsers = Object.assign(Object.create(base) as Parsers, own)));
    return parsers;
  };
}

/**
 * Sends one batch of messages ending in Sync to PGlite in this thread and returns Postgres's whole
 * answer, synchronously. The file systems the portal gives PGlite (a folder, or memory) have
 * nothing to sync afterwards.
 */
export function exchange(client: PGlite, message: Uint8Array): Buffer {
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
