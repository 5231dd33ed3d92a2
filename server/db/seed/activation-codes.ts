// Demo activation codes for a development install (never seeded in production): a few fixed,
// easy-to-type codes per kind of code printed in the books, so the activation modal can be
// tried at once. They are stored like real codes, as keyed hashes, so they work only under the
// activation code key they were seeded with.
import { and, eq, inArray, lt } from "drizzle-orm";
import type { Logger } from "#server/logger.ts";
import type { Database } from "#server/db/client.ts";
import { activationCodeBatches, activationCodes, products, type ActivationCodeKind } from "#server/db/schema/index.ts";
import { formatCode, hashCode, normalizeCode } from "#server/library/codes.ts";

type DemoBatch = {
  /** How the batch is recognised as a demo one (and told apart from the others). */
  label: string;
  kind: ActivationCodeKind;
  /** The seeded product's SKU (see catalog.ts). */
  sku: string;
  productName: string;
  maxUses: number;
  /** Fixed codes: "DEM0" (a zero: O is not in the alphabet, and typing DEMO reads the same). */
  codes: readonly string[];
};

const series = (group: string, n: number) =>
  Array.from({ length: n }, (_, i) => `DEM0-${group}-0000-${String(i + 1).padStart(4, "0")}`);

export const DEMO_ACTIVATION_BATCHES: readonly DemoBatch[] = [
  {
    label: "Demo: eBook",
    kind: "ebook",
    sku: "EB-9788828813217",
    productName: "Guida all'esame di avvocato",
    maxUses: 1,
    codes: series("EBK0", 3),
  },
  {
    label: "Demo: Libro + eBook",
    kind: "paper_digital",
    sku: "LB-9788828811015",
    productName: "Istituzioni di diritto pubblico",
    maxUses: 1,
    codes: series("PAPR", 3),
  },
  {
    label: "Demo: Corso",
    kind: "course",
    sku: "CO-2112",
    productName: "Preparazione all'esame di Diritto privato",
    maxUses: 1,
    codes: series("C0RS", 3),
  },
  {
    label: "Demo: Rivista",
    kind: "journal",
    sku: "RV-27841014",
    productName: "Rivista di diritto civile e commerciale",
    maxUses: 1,
    codes: series("RVST", 3),
  },
  {
    label: "Demo: eBook+EDU",
    kind: "ebook_edu",
    sku: "EB-9788828813040",
    productName: "Manuale di diritto privato",
    maxUses: 1,
    codes: series("EBED", 3),
  },
  {
    label: "Demo: eBook, codice per 50 clienti",
    kind: "ebook",
    sku: "EB-9788828813316",
    productName: "Schemi di diritto civile",
    maxUses: 50,
    codes: ["DEM0-MANY-0000-0050"],
  },
];

export type DemoActivationCode = { productName: string; kind: ActivationCodeKind; maxUses: number };

/** Every demo code (as printed) with what it activates. */
export const DEMO_ACTIVATION_CODES: Readonly<Record<string, DemoActivationCode>> = Object.fromEntries(
  DEMO_ACTIVATION_BATCHES.flatMap(({ codes, productName, kind, maxUses }) =>
    codes.map((code) => [code, { productName, kind, maxUses }] as const),
  ),
);

for (const code of Object.keys(DEMO_ACTIVATION_CODES)) {
  // A typo here would seed a code nobody can type: fail at import, not at the counter.
  const normalized = normalizeCode(code);
  if (normalized === null || formatCode(normalized) !== code) throw new Error(`Demo activation code ${code} is malformed`);
}

const hashOf = (codeKey: string, code: string) => hashCode(codeKey, normalizeCode(code)!);

/**
 * Creates the demo batches that are missing (recognised by label) and stores the demo codes
 * that are missing from them; returns how many codes were stored (0 when all were there). A new
 * activation code key gets the same codes re-stored under it, so a development database that
 * outlived its secrets file still accepts them.
 */
export async function seedDemoActivationCodes(db: Database, codeKey: string): Promise<number> {
  return db.transaction(async (tx) => {
    const skus = DEMO_ACTIVATION_BATCHES.map((b) => b.sku);
    const productIds = new Map(
      (await tx.select({ id: products.id, sku: products.sku }).from(products).where(inArray(products.sku, skus))).map((r) => [
        r.sku,
        r.id,
      ]),
    );
    const labels = DEMO_ACTIVATION_BATCHES.map((b) => b.label);
    const batchIds = new Map(
      (
        await tx
          .select({ id: activationCodeBatches.id, label: activationCodeBatches.label })
          .from(activationCodeBatches)
          .where(inArray(activationCodeBatches.label, labels))
      ).map((r) => [r.label, r.id]),
    );

    let stored = 0;
    for (const demo of DEMO_ACTIVATION_BATCHES) {
      let batchId = batchIds.get(demo.label);
      if (batchId === undefined) {
        const productId = productIds.get(demo.sku);
        if (productId === undefined) throw new Error(`Demo activation codes: product ${demo.sku} is not in the catalogue`);
        const [batch] = await tx
          .insert(activationCodeBatches)
          .values({ productId, kind: demo.kind, label: demo.label, maxUses: demo.maxUses })
          .returning({ id: activationCodeBatches.id });
        batchId = batch!.id;
      }
      const inserted = await tx
        .insert(activationCodes)
        .values(demo.codes.map((code) => ({ batchId, codeHash: hashOf(codeKey, code) })))
        .onConflictDoNothing({ target: activationCodes.codeHash })
        .returning({ id: activationCodes.id });
      stored += inserted.length;
    }
    return stored;
  });
}

export type UnusedDemoCode = DemoActivationCode & { code: string; usesLeft: number };

/** The demo codes that still activate something (stored under this key, uses left), in seed order. */
export async function unusedDemoCodes(db: Database, codeKey: string): Promise<UnusedDemoCode[]> {
  const codes = Object.keys(DEMO_ACTIVATION_CODES);
  const rows = await db
    .select({ codeHash: activationCodes.codeHash, uses: activationCodes.uses, maxUses: activationCodeBatches.maxUses })
    .from(activationCodes)
    .innerJoin(activationCodeBatches, eq(activationCodeBatches.id, activationCodes.batchId))
    .where(
      and(
        inArray(
          activationCodes.codeHash,
          codes.map((code) => hashOf(codeKey, code)),
        ),
        lt(activationCodes.uses, activationCodeBatches.maxUses),
      ),
    );
  const left = new Map(rows.map((r) => [r.codeHash, r.maxUses - r.uses]));
  return codes.flatMap((code) => {
    const usesLeft = left.get(hashOf(codeKey, code));
    return usesLeft === undefined ? [] : [{ code, ...DEMO_ACTIVATION_CODES[code]!, usesLeft }];
  });
}

/** One unused code per demo batch, as the start-up log shows them. */
export function demoCodesForLog(unused: readonly UnusedDemoCode[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of unused) {
    const key = `${c.kind}:${c.productName}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${c.code} (${c.kind}: ${c.productName}${c.maxUses > 1 ? `, ${c.usesLeft} uses left` : ""})`);
  }
  return lines;
}

/**
 * Seeds the demo codes (development only) and logs an unused one per batch, so a newcomer has a
 * code to type; returns how many batches were inserted.
 */
export async function seedAndLogDemoCodes(db: Database, codeKey: string, log: Logger): Promise<number> {
  const inserted = await seedDemoActivationCodes(db, codeKey);
  const codes = demoCodesForLog(await unusedDemoCodes(db, codeKey));
  if (codes.length > 0) log.info({ codes }, "demo activation codes (development only)");
  return inserted;
}
