// Operators' commands for activation codes: print a batch (the plaintext codes exist only in the
// CSV handed to the printer; the database keeps their keyed hashes), list the batches with their
// uses, withdraw a batch (its codes then activate nothing, and look to customers like unknown ones).
import { and, asc, count, eq, isNull, sql, sum } from "drizzle-orm";
import {
  ACTIVATION_CODE_KINDS,
  activationCodeBatches,
  activationCodes,
  products,
  type ActivationCodeKind,
} from "#server/db/schema/index.ts";
import { isUuid } from "#server/lib/uuid.ts";
import { checkInteger, OperatorError, productBySkuOrCode, recordOperation, validThrough, type Operator } from "./context.ts";

/** The product types a kind of code may be printed for (a kind decides what an activation grants). */
const KIND_PRODUCT_TYPES: Record<ActivationCodeKind, readonly string[]> = {
  ebook: ["ebook"],
  ebook_edu: ["ebook"],
  paper_digital: ["paper_flex", "paper_hard"],
  course: ["corso"],
  journal: ["rivista"],
};

/** Most codes in one command: a print run (the activation service's own cap is higher). */
const MAX_COUNT = 100_000;
const MAX_USES = 100_000;

export type NewCodes = {
  /** SKU or business code. */
  product: string;
  kind: string;
  count: number;
  maxUses?: number;
  /** YYYY-MM-DD: the codes work through that day (Rome); absent: they never expire. */
  validUntil?: string;
  label?: string;
};

export type CreatedCodes = {
  batchId: string;
  product: { sku: string; name: string };
  kind: ActivationCodeKind;
  label: string;
  maxUses: number;
  validUntil: Date | null;
  /** As printed (XXXX-XXXX-XXXX-XXXX): the only time they exist in clear. */
  codes: string[];
};

const isKind = (kind: string): kind is ActivationCodeKind => (ACTIVATION_CODE_KINDS as readonly string[]).includes(kind);

export async function createCodes(op: Operator, input: NewCodes): Promise<CreatedCodes> {
  const { db, services } = op;
  if (!isKind(input.kind))
    throw new OperatorError(`--kind must be one of ${ACTIVATION_CODE_KINDS.join(", ")}, not "${input.kind}"`);
  const kind = input.kind;
  const count = checkInteger(input.count, "--count", 1, MAX_COUNT);
  const maxUses = checkInteger(input.maxUses ?? 1, "--max-uses", 1, MAX_USES);
  const product = await productBySkuOrCode(db, input.product);
  if (!KIND_PRODUCT_TYPES[kind].includes(product.typeCode)) {
    throw new OperatorError(
      `A ${kind} code is printed for a product of type ${KIND_PRODUCT_TYPES[kind].join(" or ")}; ${product.sku} is of type ${product.typeCode}`,
    );
  }
  const now = services.clock();
  const validUntil = input.validUntil === undefined ? null : validThrough(input.validUntil, now);
  const label = input.label?.trim() || `${product.sku} ${kind} ${now.toISOString().slice(0, 10)}`;

  const { batchId, codes } = await services.library.activation.createBatch({
    productId: product.id,
    kind,
    label,
    count,
    maxUses,
    validUntil,
  });
  // Never the codes: what the batch is, as `codes:batches` shows it.
  await recordOperation(db, op, "codes_created", {
    details: { batchId, product: product.sku, kind, label, count, maxUses, validUntil: validUntil?.toISOString() ?? null },
  });
  return { batchId, product: { sku: product.sku, name: product.name }, kind, label, maxUses, validUntil, codes };
}

/** The printer's file: a header, then one code per line. */
export function codesCsv(codes: readonly string[]): string {
  return ["code", ...codes].join("\n") + "\n";
}

export type BatchRow = {
  id: string;
  sku: string;
  kind: ActivationCodeKind;
  label: string;
  maxUses: number;
  validUntil: Date | null;
  disabledAt: Date | null;
  createdAt: Date;
  codes: number;
  /** Activations so far, every code of the batch together. */
  uses: number;
};

/** Every batch, newest first, with its number of codes and of activations. */
export async function listBatches(op: Operator): Promise<BatchRow[]> {
  const rows = await op.db
    .select({
      id: activationCodeBatches.id,
      sku: products.sku,
      kind: activationCodeBatches.kind,
      label: activationCodeBatches.label,
      maxUses: activationCodeBatches.maxUses,
      validUntil: activationCodeBatches.validUntil,
      disabledAt: activationCodeBatches.disabledAt,
      createdAt: activationCodeBatches.createdAt,
      codes: count(activationCodes.id),
      uses: sql<number>`coalesce(${sum(activationCodes.uses)}, 0)::int`,
    })
    .from(activationCodeBatches)
    .innerJoin(products, eq(products.id, activationCodeBatches.productId))
    .leftJoin(activationCodes, eq(activationCodes.batchId, activationCodeBatches.id))
    .groupBy(activationCodeBatches.id, products.sku)
    .orderBy(sql`${activationCodeBatches.createdAt} desc`, asc(activationCodeBatches.label));
  await recordOperation(op.db, op, "codes_listed", { details: { batches: rows.length } });
  return rows;
}

export type DisabledBatch = { batchId: string; label: string; disabledAt: Date; alreadyDisabled: boolean };

/** Withdraws a batch (once: a second run says since when it is). */
export async function disableBatch(op: Operator, batchId: string): Promise<DisabledBatch> {
  const { db, services } = op;
  if (!isUuid(batchId)) throw new OperatorError(`"${batchId}" is not a batch id (codes:batches lists them)`);
  const now = services.clock();
  const [disabled] = await db
    .update(activationCodeBatches)
    .set({ disabledAt: now })
    .where(and(eq(activationCodeBatches.id, batchId), isNull(activationCodeBatches.disabledAt)))
    .returning({ label: activationCodeBatches.label });
  const [batch] = disabled
    ? [{ label: disabled.label, disabledAt: now }]
    : await db
        .select({ label: activationCodeBatches.label, disabledAt: activationCodeBatches.disabledAt })
        .from(activationCodeBatches)
        .where(eq(activationCodeBatches.id, batchId));
  if (!batch) throw new OperatorError(`No batch has the id ${batchId}`);
  await recordOperation(db, op, "codes_disabled", {
    details: { batchId, label: batch.label, alreadyDisabled: !disabled },
  });
  return { batchId, label: batch.label, disabledAt: batch.disabledAt!, alreadyDisabled: !disabled };
}
