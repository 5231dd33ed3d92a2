import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite, TransactionAbortedError } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPreparedStatements } from "./pglite-statements.ts";
import { openPgliteThread, type PgliteClient } from "./pglite-thread.ts";

const SETUP = [
  "create table things (id uuid primary key, name text, at timestamptz, data jsonb, tags text[], price numeric, ok boolean)",
  `insert into things values
     ('00000000-0000-4000-8000-000000000001', 'uno', '2000-01-01T00:00:00Z', '{"a":[1,2]}', '{x,y}', 4.50, true),
     ('00000000-0000-4000-8000-000000000002', null, null, null, null, null, null)`,
];

/** The same database, for comparison: PGlite's own query() answers on it. */
let raw: PGlite;
beforeAll(async () => {
  raw = await PGlite.create();
  for (const statement of SETUP) await raw.exec(statement);
});
afterAll(() => raw.close());

/** A client under test, on a database of its own set up like `raw`. */
type Subject = { client: PgliteClient; close(): Promise<void> };
const SUBJECTS: { name: string; open(): Promise<Subject> }[] = [
  {
    name: "PGlite in this thread (withPreparedStatements)",
    async open() {
      const own = await PGlite.create();
      for (const statement of SETUP) await own.exec(statement);
      return { client: withPreparedStatements(own), close: () => own.close() };
    },
  },
  {
    name: "PGlite in a thread of its own (openPgliteThread)",
    async open() {
      const dir = mkdtempSync(path.join(tmpdir(), "pglite-thread-"));
      const client = await openPgliteThread(dir);
      for (const statement of SETUP) await client.query(statement);
      return {
        client,
        async close() {
          await client.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

const ALL = "select * from things where id = any($1::uuid[]) order by id";
const IDS = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"];

describe.each(SUBJECTS)("$name", ({ open }) => {
  let subject: Subject;
  let client: PgliteClient;
  beforeAll(async () => {
    subject = await open();
    client = subject.client;
  });
  afterAll(() => subject.close());

  it("answers as PGlite's own query does, in both row modes, for every kind of value", async () => {
    for (const rowMode of ["object", "array"] as const) {
      const expected = await raw.query(ALL, [IDS], { rowMode });
      const first = await client.query(ALL, [IDS], { rowMode });
      const again = await client.query(ALL, [IDS], { rowMode });
      expect(first.rows).toEqual(expected.rows);
      expect(first.fields).toEqual(expected.fields);
      expect(again.rows).toEqual(expected.rows);
    }
  });

  it("applies a query's own parsers over PGlite's, each query with its own", async () => {
    const sql = "select at, price from things where name = 'uno'";
    const asText = { 1184: (value: string) => `testo ${value}` };
    const asNumber = { 1700: (value: string) => Number(value) };
    for (let i = 0; i < 2; i++) {
      const text = await client.query(sql, [], { parsers: asText });
      expect(text.rows).toEqual((await raw.query(sql, [], { parsers: asText })).rows);
      expect((text.rows[0] as { at: unknown }).at).toMatch(/^testo 2000-01-01/);
      expect((await client.query(sql, [], { parsers: asNumber })).rows).toEqual([
        { at: new Date("2000-01-01T00:00:00Z"), price: 4.5 },
      ]);
      expect((await client.query(sql)).rows).toEqual((await raw.query(sql)).rows);
    }
  });

  it("counts the rows a statement changed, with or without rows to return", async () => {
    const id = "00000000-0000-4000-8000-000000000003";
    const insert = await client.query("insert into things (id, name) values ($1, 'tre')", [id]);
    expect(insert).toMatchObject({ rows: [], fields: [], affectedRows: 1 });
    const update = await client.query("update things set name = 'tre bis' where id = $1 returning name", [id]);
    expect(update).toMatchObject({ rows: [{ name: "tre bis" }], fields: [{ name: "name" }], affectedRows: 1 });
    const none = await client.query("delete from things where id = $1 returning id", ["00000000-0000-4000-8000-000000000009"]);
    expect(none).toMatchObject({ rows: [], fields: [{ name: "id" }], affectedRows: 0 });
    expect((await client.query("delete from things where id = $1", [id])).affectedRows).toBe(1);
  });

  it("serializes parameters by their types: dates, JSON, null", async () => {
    // The value stored above, read back: no date of the calendar is involved.
    const [{ at }] = (await raw.query<{ at: Date }>("select at from things where name = 'uno'")).rows as [{ at: Date }];
    const sql = "select name from things where at = $1 or data = $2 or name = $3";
    expect((await client.query(sql, [at, null, null])).rows).toEqual([{ name: "uno" }]);
    expect((await client.query(sql, [null, { a: [1, 2] }, null])).rows).toEqual([{ name: "uno" }]);
  });

  it("reports errors with their code and stays usable", async () => {
    const insert = "insert into things (id, name) values ($1, $2)";
    await expect(client.query(insert, [IDS[0], "doppio"])).rejects.toMatchObject({ code: "23505" });
    await expect(client.query("select nope from things")).rejects.toMatchObject({ code: "42703" });
    expect((await client.query<{ n: number }>("select count(*)::int as n from things")).rows).toEqual([{ n: 2 }]);
  });

  it("prepares again when the schema changed under a statement", async () => {
    const sql = "select * from things where id = $1";
    expect(Object.keys((await client.query<object>(sql, [IDS[0]])).rows[0]!)).not.toContain("extra");
    await client.query("alter table things add column extra int default 7");
    expect((await client.query<{ extra: number }>(sql, [IDS[0]])).rows[0]!.extra).toBe(7);
  });

  it("waits for a transaction in progress, as PGlite's own query does", async () => {
    const order: string[] = [];
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const transaction = client.transaction(async (tx) => {
      await tx.query("update things set name = 'cambiato' where id = $1", [IDS[1]]);
      inside();
      await new Promise((resolve) => setTimeout(resolve, 50));
      order.push("transaction");
    });
    await started;
    const read = client.query<{ name: string }>("select name from things where id = $1", [IDS[1]]).then((result) => {
      order.push("query");
      return result.rows[0]!.name;
    });
    await transaction;
    expect(await read).toBe("cambiato");
    expect(order).toEqual(["transaction", "query"]);
  });

  it("reads an answer longer than one of Postgres's output buffers, with every value intact", async () => {
    // About 400 KB: Postgres hands it over in several pieces.
    const sql = "select n, repeat('è' || n::text, 20) as text, $1::text as tail from generate_series(1, 5000) as n";
    for (const rowMode of ["object", "array"] as const) {
      const expected = await raw.query(sql, ["fine"], { rowMode });
      const answer = await client.query(sql, ["fine"], { rowMode });
      expect(answer.rows).toHaveLength(5000);
      expect(answer.rows).toEqual(expected.rows);
    }
  });

  it("keeps statements issued together apart from a transaction under way among them", async () => {
    const read = (id: string) => client.query<{ name: string | null }>("select name from things where id = $1", [id]);
    const before = Array.from({ length: 20 }, (_, i) => read(IDS[i % 2]!));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const transaction = client.transaction(async (tx) => {
      await tx.query("update things set name = 'durante' where id = $1", [IDS[0]!]);
      inside();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await tx.query("update things set name = 'uno' where id = $1", [IDS[0]!]);
    });
    await started;
    const during = Array.from({ length: 20 }, () => read(IDS[0]!));
    await transaction;
    // None ran inside the transaction: none saw its intermediate name.
    for (const answer of await Promise.all([...before, ...during])) expect(answer.rows[0]!.name).not.toBe("durante");
    expect((await read(IDS[0]!)).rows).toEqual([{ name: "uno" }]);
  });

  it("rolls a failed transaction back, rethrows its error, and stays usable", async () => {
    const failure = new Error("a step failed");
    await expect(
      client.transaction(async (tx) => {
        await tx.query("update things set name = 'a metà' where id = $1", [IDS[0]!]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(
      client.transaction(async (tx) => {
        await tx.query("insert into things (id) values ($1)", [IDS[0]!]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await client.query("select name from things where id = $1", [IDS[0]!])).rows).toEqual([{ name: "uno" }]);
    // A failed statement whose error the work swallowed: COMMIT rolls back, and says so.
    await expect(
      client.transaction(async (tx) => {
        await tx.query("update things set name = 'perso' where id = $1", [IDS[0]!]);
        await tx.query("select nope from things").catch(() => {});
      }),
    ).rejects.toBeInstanceOf(TransactionAbortedError);
    expect((await client.query("select name from things where id = $1", [IDS[0]!])).rows).toEqual([{ name: "uno" }]);
    const committed = await client.transaction(async (tx) => {
      await tx.query("update things set ok = false where id = $1", [IDS[0]!]);
      return "fatto";
    });
    expect(committed).toBe("fatto");
    expect((await client.query("select ok from things where id = $1", [IDS[0]!])).rows).toEqual([{ ok: false }]);
  });

  it("runs texts beyond those it keeps prepared, however often", async () => {
    // More distinct texts than are kept (1000): the last ones are prepared for each run.
    for (let n = 0; n < 1010; n++) expect((await client.query<{ n: number }>(`select ${n}::int as n`)).rows).toEqual([{ n }]);
    for (let i = 0; i < 3; i++)
      expect((await client.query<{ n: number }>("select $1::int + 1009 as n", [i])).rows).toEqual([{ n: 1009 + i }]);
    // The same text at the same time: each run has its statement to itself.
    const together = await Promise.all([1, 2, 3, 4, 5].map((i) => client.query<{ n: number }>("select $1::int * 2 as n", [i])));
    expect(together.map((answer) => answer.rows)).toEqual([1, 2, 3, 4, 5].map((i) => [{ n: i * 2 }]));
  });
});

describe("PGlite in a thread of its own, opening and closing", () => {
  it("says why when the database cannot be opened", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "pglite-thread-"));
    const notAFolder = path.join(dir, "file");
    writeFileSync(notAFolder, "");
    try {
      await expect(openPgliteThread(notAFolder)).rejects.toThrow(/could not open/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses statements once closed, and keeps what was written for the next opening", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "pglite-thread-"));
    try {
      const first = await openPgliteThread(dir);
      await first.query("create table kept (n int)");
      await first.query("insert into kept values (42)");
      await first.close();
      await expect(first.query("select 1")).rejects.toThrow(/database thread/);
      const second = await openPgliteThread(dir);
      expect((await second.query("select n from kept")).rows).toEqual([{ n: 42 }]);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
