// catalogue:import over production's first state (reference data, no product): the shipped
// example file creates its products, a dry run writes nothing, a file with bad rows is refused
// whole with each problem on its line, and importing again updates by SKU (or changes nothing).
import { readFileSync } from "node:fs";
import path from "node:path";
import { asc, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createTestServices } from "#tests/support/services.ts";
import { auditLog, products, productTypes } from "#server/db/schema/index.ts";
import { seedReferenceData } from "#server/db/seed/index.ts";
import type { Services } from "#server/services.ts";
import { importCatalogue } from "./catalogue.ts";
import { OperatorError, type Operator } from "./context.ts";

const EXAMPLE = readFileSync(path.resolve(import.meta.dirname, "../../deploy/catalogue-example.csv"), "utf8");
const HEADER = EXAMPLE.slice(0, EXAMPLE.indexOf("\n") + 1);

let database: TestDatabase;
let services: Services;
let op: Operator;

beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
  await seedReferenceData(database.db, testConfig().links);
  services = await createTestServices(database, testConfig(), { now: () => START });
  op = { db: database.db, services, actor: "operator:test" };
});
afterAll(async () => {
  await services?.close();
  await database?.destroy();
});

const productCount = async () => (await database.db.select({ n: count() }).from(products))[0]!.n;
const imports = () => database.db.select().from(auditLog).where(eq(auditLog.event, "catalogue_imported"));
const bySku = async (sku: string) => (await database.db.select().from(products).where(eq(products.sku, sku)))[0];

/** The example's rows each with its price changed by `f`, or as they are. */
const withPrice = (f: (cents: number) => number) =>
  EXAMPLE.replace(
    /^([^,\n]+,[^,\n]*,[a-z_]+,[^,\n]+),(\d+),/gm,
    (_, head: string, cents: string) => `${head},${f(Number(cents))},`,
  );

describe("catalogue:import", () => {
  it("refuses a file with bad rows, telling each problem with its line, and writes nothing", async () => {
    const unclosed = HEADER + 'LB-1,,ebook,Uno,100,,,,,,,,,,,,,,,\nEDU,,abbonamento,"non chiuso,2700\n';
    const refused = await importCatalogue(op, unclosed, { file: "bad.csv", dryRun: false }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OperatorError);
    expect((refused as Error).message).toBe(
      'The catalogue file has 1 problem(s); nothing was imported:\n  line 3: a quoted field is not closed (a " is missing)',
    );

    const latin1 = Buffer.from(HEADER + "LB-1,,ebook,Libertà,100,,,,,,,,,,,,,,,\n", "latin1").toString("utf8");
    await expect(importCatalogue(op, latin1, { file: "latin1.csv", dryRun: true })).rejects.toThrow(
      /line 2: the file is not UTF-8 \(accents are unreadable\): save it as "CSV UTF-8"/,
    );

    const rows =
      HEADER +
      'LB-1,,paper_flex,"Un libro, buono",3200,,,,,,,,,2026-09-14,,,,sì,no,\n' +
      "LB-2,,libro,Senza tipo,32,00,,,,,,,,,,,,,,,\n" +
      "\n" +
      "LB-1,,ebook,,3200,,,,,,,,,2026-02-30,,,LB-9,forse,,\n" +
      "EDU,abbonamentoedu,abbonamento,EDU,2700,,123,,,,,,,,,,,,,\n";
    const problems = ((await importCatalogue(op, rows, { file: "bad.csv", dryRun: false }).catch((e: unknown) => e)) as Error)
      .message;
    for (const told of [
      "line 3: type must be one of",
      "line 3: it has 21 cells, the header 20",
      "line 5: name is empty",
      'line 5: pubdate must be a date written YYYY-MM-DD, not "2026-02-30"',
      'line 5: for_students must be yes or no, not "forse"',
      "line 6: monthly_price_cents is needed for a subscription (abbonamento)",
      'line 6: isbn must be an ISBN of 10 or 13 digits, not "123"',
    ])
      expect(problems).toContain(told);
    // The good first row is not written either: one file, one transaction.
    expect(problems).not.toContain("line 2:");
    expect(await productCount()).toBe(0);
    expect(await imports()).toEqual([]);

    const duplicate = HEADER + "LB-1,,paper_flex,A,100,,,,,,,,,,,,,,,\nLB-1,,paper_flex,B,100,,,,,,,,,,,,LB-0,,,\n";
    const told = ((await importCatalogue(op, duplicate, { file: "d.csv", dryRun: false }).catch((e: unknown) => e)) as Error)
      .message;
    expect(told).toContain("line 3: sku LB-1 is on line 2 too");
    expect(told).toContain("line 3: master_sku LB-0 is neither in the file nor in the catalogue");
    expect(
      await importCatalogue(op, "sku,prezzo\n", { file: "h.csv", dryRun: true }).catch((e: unknown) => (e as Error).message),
    ).toMatch(/line 1: unknown column "prezzo".*\n {2}line 1: the column type is missing/s);
  });

  it("in a dry run reports what would be created and writes nothing", async () => {
    const result = await importCatalogue(op, EXAMPLE, { file: "catalogue-example.csv", dryRun: true });
    expect(result).toMatchObject({ dryRun: true, rows: 6, updated: [], unchanged: 0 });
    expect(result.created).toHaveLength(6);
    expect(await productCount()).toBe(0);
    expect(await imports()).toEqual([]);
  });

  it("creates the example's products with their type's terms and the eBook's paper master, with an audit row", async () => {
    const result = await importCatalogue(op, EXAMPLE, { file: "catalogue-example.csv", dryRun: false });
    expect(result).toMatchObject({ dryRun: false, rows: 6, updated: [], unchanged: 0 });
    expect(await productCount()).toBe(6);

    const paper = await bySku("LB-9788828800101");
    const ebook = await bySku("EB-9788828800301");
    expect(ebook).toMatchObject({ masterProductId: paper!.id, vatRateBps: 400, grantsAccess: true, priceCents: 2190 });
    expect(paper).toMatchObject({
      shortAuthors: "Giorgio Ferraresi, Laura Benvenuti",
      pubdate: new Date("2026-09-14T09:00:00Z"),
      forStudents: true,
      forLegalProfessions: false,
      sellable: true,
      cover: "lb-9788828800101",
    });
    expect((await bySku("LC-9788828800201"))!.description).toContain('"massime"');
    const edu = await bySku("EDU-6M");
    expect(edu).toMatchObject({ code: "abbonamentoedu", monthlyPriceCents: 450, accessMonths: 6 });
    const [type] = await database.db
      .select({ code: productTypes.code })
      .from(productTypes)
      .where(eq(productTypes.id, edu!.productTypeId));
    expect(type!.code).toBe("abbonamento");

    const [audit] = await imports();
    expect(audit).toMatchObject({
      actor: "operator:test",
      details: { file: "catalogue-example.csv", rows: 6, created: 6, updated: 0, unchanged: 0 },
    });
  });

  it("imported again changes nothing; with new prices, updates those products by SKU, dry run first", async () => {
    expect(await importCatalogue(op, EXAMPLE, { file: "again.csv", dryRun: false })).toMatchObject({
      created: [],
      updated: [],
      unchanged: 6,
    });

    const dearer = withPrice((cents) => cents + 100);
    const dry = await importCatalogue(op, dearer, { file: "dearer.csv", dryRun: true });
    expect(dry.updated).toHaveLength(6);
    expect(dry.updated[0]).toEqual({ sku: "LB-9788828800101", fields: ["price_cents"] });
    expect((await bySku("LB-9788828800101"))!.priceCents).toBe(3200);

    const before = await database.db.select({ id: products.id, sku: products.sku }).from(products).orderBy(asc(products.sku));
    const done = await importCatalogue(op, dearer, { file: "dearer.csv", dryRun: false });
    expect(done).toMatchObject({ created: [], unchanged: 0 });
    expect(done.updated).toHaveLength(6);
    expect((await bySku("LB-9788828800101"))!.priceCents).toBe(3300);
    // The same rows, under the same ids: orders and access that point to them are untouched.
    expect(await database.db.select({ id: products.id, sku: products.sku }).from(products).orderBy(asc(products.sku))).toEqual(
      before,
    );
  });
});
