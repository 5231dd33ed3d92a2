// Operators' commands for discount codes: create one, list them with their uses, withdraw one.
// A withdrawn code applies to no order from then on, at the checkout and when a payment starts
// (the one rule is `couponUsable` in server/commerce/checkout.ts).
import { and, asc, eq, isNull } from "drizzle-orm";
import { coupons, products } from "#server/db/schema/index.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import { normalizeCouponCode } from "#server/commerce/checkout.ts";
import { checkInteger, OperatorError, productBySkuOrCode, recordOperation, validThrough, type Operator } from "./context.ts";

/** What a customer can type, once upper-cased: letters, digits, - and _. */
const COUPON_CODE = /^[A-Z0-9_-]{3,40}$/;
const MAX_AMOUNT_CENTS = 1_000_000;
const MAX_USES = 1_000_000;

export type NewCoupon = {
  code: string;
  description: string;
  percent?: number;
  amountCents?: number;
  maxRedemptions?: number;
  maxPerCustomer?: number;
  /** SKU or business code: only orders holding it are discounted. */
  product?: string;
  /** YYYY-MM-DD: the code works through that day (Rome). */
  validUntil?: string;
};

export async function createCoupon(op: Operator, input: NewCoupon) {
  const { db, services } = op;
  const code = normalizeCouponCode(input.code);
  if (!COUPON_CODE.test(code)) throw new OperatorError(`--code must be 3 to 40 letters, digits, - or _, not "${input.code}"`);
  const description = input.description.trim();
  if (description === "") throw new OperatorError("--description is needed (the customer does not see it; operators do)");
  if ((input.percent === undefined) === (input.amountCents === undefined)) {
    throw new OperatorError("Give exactly one of --percent and --amount-cents");
  }
  const percentOff = input.percent === undefined ? null : checkInteger(input.percent, "--percent", 1, 100);
  const amountOffCents =
    input.amountCents === undefined ? null : checkInteger(input.amountCents, "--amount-cents", 1, MAX_AMOUNT_CENTS);
  const maxRedemptions =
    input.maxRedemptions === undefined ? null : checkInteger(input.maxRedemptions, "--max-redemptions", 1, MAX_USES);
  const maxPerCustomer = checkInteger(input.maxPerCustomer ?? 1, "--max-per-customer", 1, MAX_USES);
  const product = input.product === undefined ? null : await productBySkuOrCode(db, input.product);
  const now = services.clock();
  const validUntil = input.validUntil === undefined ? null : validThrough(input.validUntil, now);

  const values = {
    code,
    description,
    kind: percentOff === null ? ("amount" as const) : ("percent" as const),
    percentOff,
    amountOffCents,
    maxRedemptions,
    maxPerCustomer,
    productId: product?.id ?? null,
    validUntil,
    createdAt: now,
  };
  try {
    await db.transaction(async (tx) => {
      await tx.insert(coupons).values(values);
      await recordOperation(tx, op, "coupon_created", {
        details: { code, percentOff, amountOffCents, maxRedemptions, maxPerCustomer, product: product?.sku ?? null, validUntil },
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new OperatorError(`A discount code ${code} exists already`);
    throw error;
  }
  return { ...values, product: product?.sku ?? null };
}

/** Every discount code, with its uses so far (counted when a payment starts, given back if it fails). */
export async function listCoupons(op: Operator) {
  const rows = await op.db
    .select({
      code: coupons.code,
      description: coupons.description,
      kind: coupons.kind,
      percentOff: coupons.percentOff,
      amountOffCents: coupons.amountOffCents,
      product: products.sku,
      validUntil: coupons.validUntil,
      redemptions: coupons.redemptions,
      maxRedemptions: coupons.maxRedemptions,
      maxPerCustomer: coupons.maxPerCustomer,
      disabledAt: coupons.disabledAt,
    })
    .from(coupons)
    .leftJoin(products, eq(products.id, coupons.productId))
    .orderBy(asc(coupons.code));
  await recordOperation(op.db, op, "coupons_listed", { details: { coupons: rows.length } });
  return rows;
}

/** Withdraws a code (once: a second run says since when it is). */
export async function disableCoupon(op: Operator, input: string) {
  const { db, services } = op;
  const code = normalizeCouponCode(input);
  if (!COUPON_CODE.test(code)) throw new OperatorError(`"${input}" is not a discount code`);
  const now = services.clock();
  const [disabled] = await db
    .update(coupons)
    .set({ disabledAt: now })
    .where(and(eq(coupons.code, code), isNull(coupons.disabledAt)))
    .returning({ disabledAt: coupons.disabledAt });
  const [coupon] = disabled
    ? [disabled]
    : await db.select({ disabledAt: coupons.disabledAt }).from(coupons).where(eq(coupons.code, code));
  if (!coupon) throw new OperatorError(`No discount code ${code}`);
  await recordOperation(db, op, "coupon_disabled", { details: { code, alreadyDisabled: !disabled } });
  return { code, disabledAt: coupon.disabledAt!, alreadyDisabled: !disabled };
}
