// catalogue:import: the publisher's catalogue from a CSV file (docs/operating.md, "The catalogue";
// an example in deploy/catalogue-example.csv). Every row is checked first, and a file with any
// problem is refused whole, each problem told with its line: nothing is written. A good file is
// written in one transaction, each product created or updated by its SKU, so importing it again
// changes nothing; products the file does not name are left as they are (withdrawn with sellable =
// no, never deleted: orders point to them). --dry-run reports what would change and writes nothing.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Queryable } from "#server/db/client.ts";
import { products, productTypes } from "#server/db/schema/index.ts";
import { COMMERCE_TERMS } from "#server/db/seed/catalog.ts";
import type { ProductTypeCode } from "#server/db/seed/types.ts";
import { CsvError, parseCsv, type CsvRecord } from "#server/lib/csv.ts";
import { isProductCode } from "#server/lib/ids.ts";
import { OperatorError, recordOperation, type Operator } from "./context.ts";

const REQUIRED = ["sku", "type", "name", "price_cents"] as const;
const OPTIONAL = [
  "code",
  "isbn",
  "issn",
  "ean",
  "authors",
  "edition",
  "periodicity",
  "description",
  "pubdate",
  "monthly_price_cents",
  "moodle_id",
  "url",
  "master_sku",
  "for_students",
  "for_legal_professions",
  "sellable",
] as const;
type Column = (typeof REQUIRED)[number] | (typeof OPTIONAL)[number];
const COLUMNS: readonly string[] = [...REQUIRED, ...OPTIONAL];

const MAX_CENTS = 10_000_000;
const MAX_PROBLEMS_SHOWN = 50;
const INSERT_SLICE = 500;
const YES = ["yes", "sì", "si", "true", "1", "y", "s"];
const NO = ["no", "false", "0", "n"];

/** A product as the file gives it, ready to compare with the stored one and to write. */
type ProductValues = Omit<typeof products.$inferSelect, "id" | "cover" | "createdAt">;
type Field = keyof ProductValues;
/** Each stored field compared, with the column of the file that sets it (the type sets the commerce terms). */
const COMPARED: ReadonlyArray<readonly [Field, Column]> = [
  ["code", "code"],
  ["name", "name"],
  ["productTypeId", "type"],
  ["isbn", "isbn"],
  ["issn", "issn"],
  ["ean", "ean"],
  ["shortAuthors", "authors"],
  ["edition", "edition"],
  ["periodicity", "periodicity"],
  ["description", "description"],
  ["pubdate", "pubdate"],
  ["priceCents", "price_cents"],
  ["monthlyPriceCents", "monthly_price_cents"],
  ["moodleId", "moodle_id"],
  ["url", "url"],
  ["masterProductId", "master_sku"],
  ["forStudents", "for_students"],
  ["forLegalProfessions", "for_legal_professions"],
  ["sellable", "sellable"],
  ["vatRateBps", "type"],
  ["grantsAccess", "type"],
  ["accessMonths", "type"],
];

export type CatalogueImport = {
  dryRun: boolean;
  /** Rows read (the header left out). */
  rows: number;
  created: string[];
  /** Each product updated, with the columns whose values change. */
  updated: { sku: string; fields: Column[] }[];
  unchanged: number;
};

/** A row checked, with what is left to resolve against the database (the master's id). */
type CheckedRow = {
  line: number;
  values: Omit<ProductValues, "productTypeId" | "masterProductId">;
  type: string;
  masterSku: string | null;
};

/** The cell of a column, trimmed; "" when the column is absent or the cell empty. */
const cellOf = (header: Map<string, number>, record: CsvRecord) => (column: Column) =>
  (record.fields[header.get(column) ?? -1] ?? "").trim();

/** Checks one row: its values, or the problems of its cells. */
function checkRow(header: Map<string, number>, record: CsvRecord, types: Set<string>): CheckedRow | string[] {
  const cell = cellOf(header, record);
  const problems: string[] = [];
  const text = (column: Column, max = 2000) => {
    const value = cell(column);
    if (value.length > max) problems.push(`${column} is longer than ${max} characters`);
    return value === "" ? null : value;
  };
  const whole = (column: Column, max: number) => {
    const value = cell(column);
    if (value === "") return null;
    if (!/^\d+$/.test(value) || Number(value) > max) {
      problems.push(
        `${column} must be a whole number from 0 to ${max}${column.endsWith("_cents") ? " (cents: 3200 for 32,00 €)" : ""}, not "${value}"`,
      );
      return null;
    }
    return Number(value);
  };
  const flag = (column: Column, byDefault: boolean) => {
    const value = cell(column).toLowerCase();
    if (value === "") return byDefault;
    if (YES.includes(value)) return true;
    if (!NO.includes(value)) problems.push(`${column} must be yes or no, not "${cell(column)}"`);
    return false;
  };
  const identifier = (column: Column, pattern: RegExp, what: string) => {
    const value = text(column, 40);
    if (value !== null && !pattern.test(value)) problems.push(`${column} must be ${what}, not "${value}"`);
    return value;
  };

  if (record.fields.length > header.size)
    problems.push(
      `it has ${record.fields.length} cells, the header ${header.size} (a separator inside a cell that is not quoted?)`,
    );
  const sku = cell("sku");
  if (!isProductCode(sku))
    problems.push(sku === "" ? "sku is empty" : `sku must be 1 to 64 letters, digits, . _ or -, not "${sku}"`);
  const code = text("code", 64);
  if (code !== null && !isProductCode(code)) problems.push(`code must be 1 to 64 letters, digits, . _ or -, not "${code}"`);
  const type = cell("type");
  if (!types.has(type)) problems.push(`type must be one of ${[...types].join(", ")}, not "${type}"`);
  const name = text("name", 500);
  if (name === null) problems.push("name is empty");
  const priceCents = whole("price_cents", MAX_CENTS);
  if (priceCents === null && cell("price_cents") === "") problems.push("price_cents is empty");
  const monthlyPriceCents = whole("monthly_price_cents", MAX_CENTS);
  if (type === "abbonamento" && monthlyPriceCents === null && cell("monthly_price_cents") === "")
    problems.push("monthly_price_cents is needed for a subscription (abbonamento)");
  const pubdateText = cell("pubdate");
  let pubdate: Date | null = null;
  if (pubdateText !== "") {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(pubdateText);
    // 09:00 UTC: the same calendar day in Rome, as the demo catalogue's dates.
    pubdate = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 9)) : null;
    if (!pubdate || pubdate.toISOString().slice(0, 10) !== pubdateText) {
      problems.push(`pubdate must be a date written YYYY-MM-DD, not "${pubdateText}"`);
      pubdate = null;
    }
  }
  const url = text("url", 2000);
  if (url !== null && !/^https?:\/\/[^\s]+$/.test(url)) problems.push(`url must be an http(s) address, not "${url}"`);
  const masterSku = text("master_sku", 64);
  if (masterSku !== null && masterSku === sku) problems.push("master_sku names the product itself");
  const values = {
    sku,
    code,
    name: name ?? "",
    isbn: identifier("isbn", /^(?:\d[- ]?){9}[\dX]$|^(?:\d[- ]?){12}\d$/, "an ISBN of 10 or 13 digits"),
    issn: identifier("issn", /^\d{4}-\d{3}[\dX]$/, "an ISSN written NNNN-NNNN"),
    ean: identifier("ean", /^\d{8}$|^\d{13}$/, "an EAN of 8 or 13 digits"),
    shortAuthors: text("authors", 500),
    edition: text("edition", 200),
    periodicity: text("periodicity", 100),
    description: text("description", 10_000),
    pubdate,
    priceCents: priceCents ?? 0,
    monthlyPriceCents,
    moodleId: whole("moodle_id", 2_147_483_647),
    url,
    forStudents: flag("for_students", false),
    forLegalProfessions: flag("for_legal_professions", false),
    sellable: flag("sellable", true),
    ...(types.has(type) ? COMMERCE_TERMS[type as ProductTypeCode] : COMMERCE_TERMS.ebook),
  };
  return problems.length > 0 ? problems : { line: record.line, values, type, masterSku };
}

/** The file's header as column → position, or the problems of line 1. */
function readHeader(record: CsvRecord | undefined): Map<string, number> | string[] {
  if (!record) return ["the file is empty: the first line names the columns (sku, type, name, price_cents, …)"];
  const header = new Map<string, number>();
  const problems: string[] = [];
  record.fields.forEach((raw, i) => {
    const column = raw.trim().toLowerCase();
    if (!COLUMNS.includes(column)) problems.push(`unknown column "${raw.trim()}" (the columns are ${COLUMNS.join(", ")})`);
    else if (header.has(column)) problems.push(`the column ${column} appears twice`);
    else header.set(column, i);
  });
  for (const column of REQUIRED) if (!header.has(column)) problems.push(`the column ${column} is missing`);
  return problems.length > 0 ? problems : header;
}

type Plan = {
  rows: number;
  /** New products, with the ids chosen for them; products whose stored values differ. */
  insert: (ProductValues & { id: string })[];
  update: ProductValues[];
  created: string[];
  updated: CatalogueImport["updated"];
  unchanged: number;
};

/** Reads and checks the whole file against the database; a problem anywhere is an OperatorError listing them all by line. */
async function planImport(db: Queryable, csv: string): Promise<Plan> {
  // A spreadsheet's plain "CSV" is often Windows-1252: read as UTF-8, its accents become U+FFFD.
  const garbled = csv.indexOf("\uFFFD");
  if (garbled >= 0) {
    const line = csv.slice(0, garbled).split("\n").length;
    throw refused([{ line, message: 'the file is not UTF-8 (accents are unreadable): save it as "CSV UTF-8"' }]);
  }
  let records: CsvRecord[];
  try {
    records = parseCsv(csv);
  } catch (error) {
    if (error instanceof CsvError) throw refused([{ line: error.line, message: error.message.replace(/^line \d+: /, "") }]);
    throw error;
  }
  const [first, ...body] = records;
  const header = readHeader(first);
  if (Array.isArray(header)) throw refused(header.map((message) => ({ line: first?.line ?? 1, message })));

  const typeRows = await db.select({ id: productTypes.id, code: productTypes.code }).from(productTypes);
  const typeIds = new Map(typeRows.map((t) => [t.code, t.id]));
  const existing = await db.select().from(products);
  const bySku = new Map(existing.map((p) => [p.sku, p]));
  const skuByCode = new Map(existing.flatMap((p) => (p.code ? [[p.code, p.sku] as const] : [])));

  const problems: { line: number; message: string }[] = [];
  const checked: CheckedRow[] = [];
  const lineOfSku = new Map<string, number>();
  const lineOfCode = new Map<string, number>();
  for (const record of body) {
    const row = checkRow(header, record, new Set(typeIds.keys()));
    if (Array.isArray(row)) {
      problems.push(...row.map((message) => ({ line: record.line, message })));
      continue;
    }
    const { sku, code } = row.values;
    const twin = lineOfSku.get(sku);
    if (twin !== undefined) problems.push({ line: row.line, message: `sku ${sku} is on line ${twin} too` });
    lineOfSku.set(sku, row.line);
    if (code !== null) {
      const codeTwin = lineOfCode.get(code);
      if (codeTwin !== undefined) problems.push({ line: row.line, message: `code ${code} is on line ${codeTwin} too` });
      lineOfCode.set(code, row.line);
      const holder = skuByCode.get(code);
      if (holder !== undefined && holder !== sku)
        problems.push({ line: row.line, message: `code ${code} belongs to product ${holder}` });
    }
    checked.push(row);
  }
  for (const row of checked) {
    if (row.masterSku !== null && !lineOfSku.has(row.masterSku) && !bySku.has(row.masterSku)) {
      problems.push({ line: row.line, message: `master_sku ${row.masterSku} is neither in the file nor in the catalogue` });
    }
  }
  if (problems.length > 0) throw refused(problems);

  // Ids are chosen here, so that a digital edition can name its paper master created by the same file.
  const idOf = new Map(checked.map((row) => [row.values.sku, bySku.get(row.values.sku)?.id ?? randomUUID()]));
  const plan: Plan = { rows: body.length, insert: [], update: [], created: [], updated: [], unchanged: 0 };
  for (const row of checked) {
    const values: ProductValues = {
      ...row.values,
      productTypeId: typeIds.get(row.type)!,
      masterProductId: row.masterSku === null ? null : (idOf.get(row.masterSku) ?? bySku.get(row.masterSku)!.id),
    };
    const stored = bySku.get(values.sku);
    if (!stored) {
      plan.created.push(values.sku);
      plan.insert.push({ ...values, id: idOf.get(values.sku)! });
      continue;
    }
    const fields = [...new Set(COMPARED.filter(([field]) => !same(stored[field], values[field])).map(([, column]) => column))];
    if (fields.length === 0) plan.unchanged++;
    else {
      plan.updated.push({ sku: values.sku, fields });
      plan.update.push(values);
    }
  }
  return plan;
}

const same = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b);

function refused(problems: { line: number; message: string }[]): OperatorError {
  const shown = problems
    .slice(0, MAX_PROBLEMS_SHOWN)
    .map((p) => `  line ${p.line}: ${p.message}`)
    .join("\n");
  const more = problems.length > MAX_PROBLEMS_SHOWN ? `\n  … and ${problems.length - MAX_PROBLEMS_SHOWN} more` : "";
  return new OperatorError(`The catalogue file has ${problems.length} problem(s); nothing was imported:\n${shown}${more}`);
}

/**
 * Imports the catalogue in `csv` (the file's text; `file` names it in the audit log). With
 * `dryRun`, reports what would change and writes nothing, not even the audit row.
 */
export async function importCatalogue(
  op: Operator,
  csv: string,
  { file, dryRun }: { file: string; dryRun: boolean },
): Promise<CatalogueImport> {
  const report = (plan: Plan): CatalogueImport => ({
    dryRun,
    rows: plan.rows,
    created: plan.created,
    updated: plan.updated,
    unchanged: plan.unchanged,
  });
  if (dryRun) return report(await planImport(op.db, csv));
  return op.db.transaction(async (tx) => {
    const plan = await planImport(tx, csv);
    const now = op.services.clock();
    // In slices: PostgreSQL takes at most 65 535 parameters a statement (some 25 a product).
    for (let i = 0; i < plan.insert.length; i += INSERT_SLICE) {
      const slice = plan.insert.slice(i, i + INSERT_SLICE);
      await tx.insert(products).values(slice.map((values) => ({ ...values, cover: values.sku.toLowerCase(), createdAt: now })));
    }
    for (const { sku, ...values } of plan.update) await tx.update(products).set(values).where(eq(products.sku, sku));
    await recordOperation(tx, op, "catalogue_imported", {
      details: { file, rows: plan.rows, created: plan.created.length, updated: plan.updated.length, unchanged: plan.unchanged },
    });
    return report(plan);
  });
}
