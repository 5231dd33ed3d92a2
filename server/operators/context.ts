// What every operator's command (scripts/admin.ts; docs/operating.md, "Operators' commands") works
// with: the services over the configured database and who runs it, plus the lookups, checks and
// audit entry the commands share. A command's module takes this and returns plain data; the script
// prints it.
import { eq, or } from "drizzle-orm";
import { createAuditLog } from "#server/audit/service.ts";
import type { Database, Queryable } from "#server/db/client.ts";
import { products, productTypes, users, type AuditEvent } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { isProductCode } from "#server/lib/ids.ts";
import { fromRomeWallClock } from "#shared/rome-clock.ts";

export type Operator = {
  db: Database;
  services: Services;
  /** `operator:<name>`: the audit log's actor of everything the command does. */
  actor: string;
};

/**
 * A mistake in what the operator asked for (an unknown e-mail, a date that is no date): its
 * message says all they need, so the script prints it alone, without a stack trace.
 */
export class OperatorError extends Error {
  override name = "OperatorError";
}

/** `operator:<name>` from the name given with --actor, or the system user's. */
export function operatorActor(name: string): string {
  const trimmed = name.trim();
  if (!/^[\w.@+-]{1,64}$/.test(trimmed)) {
    throw new OperatorError(`The operator's name must be 1 to 64 letters, digits or . _ @ + -, not "${name}"`);
  }
  return `operator:${trimmed}`;
}

/** Records what the command did, as the operator (in the caller's transaction when given one). */
export async function recordOperation(
  db: Queryable,
  op: Operator,
  event: AuditEvent,
  { userId, details }: { userId?: string | null; details: Record<string, unknown> },
): Promise<void> {
  await createAuditLog(db, op.services.clock).record(event, { userId, actor: op.actor, details });
}

export type Customer = { id: string; email: string; firstname: string | null; lastname: string | null };

/** The account with this e-mail (as stored: trimmed, lower-cased); an erased account has none. */
export async function customerByEmail(db: Queryable, email: string): Promise<Customer> {
  const wanted = email.trim().toLowerCase();
  const [row] = wanted
    ? await db
        .select({ id: users.id, email: users.email, firstname: users.firstname, lastname: users.lastname })
        .from(users)
        .where(eq(users.email, wanted))
    : [];
  if (!row?.email) throw new OperatorError(`No customer has the e-mail "${email}"`);
  return { ...row, email: row.email };
}

export type ProductRef = { id: string; sku: string; code: string | null; name: string; typeCode: string };

/** A product by its SKU or its business code (EB-9788828813217, abbonamentoedu). */
export async function productBySkuOrCode(db: Queryable, value: string): Promise<ProductRef> {
  const wanted = value.trim();
  const [row] = isProductCode(wanted)
    ? await db
        .select({ id: products.id, sku: products.sku, code: products.code, name: products.name, typeCode: productTypes.code })
        .from(products)
        .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
        .where(or(eq(products.sku, wanted), eq(products.code, wanted)))
    : [];
  if (!row) throw new OperatorError(`No product has the SKU or code "${value}"`);
  return row;
}

/**
 * `--valid-until YYYY-MM-DD`: valid through that day on Rome's calendar, so the first instant
 * that no longer is: midnight in Rome at the start of the next day. Refused when already past.
 */
export function validThrough(day: string, now: Date): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day.trim());
  const [year, month, date] = match ? match.slice(1).map(Number) : [];
  const wall = match ? new Date(Date.UTC(year!, month! - 1, date!)) : null;
  // 2026-02-30 rolls over into March: not a day of the calendar.
  if (!wall || wall.getUTCFullYear() !== year || wall.getUTCMonth() !== month! - 1 || wall.getUTCDate() !== date) {
    throw new OperatorError(`"${day}" is not a date: write it as YYYY-MM-DD`);
  }
  wall.setUTCDate(wall.getUTCDate() + 1);
  const end = fromRomeWallClock(wall);
  if (end <= now) throw new OperatorError(`${day} is already past`);
  return end;
}

/** A whole number within bounds, or an error naming the option. */
export function checkInteger(value: number, option: string, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new OperatorError(`${option} must be a whole number from ${min} to ${max}, not ${value}`);
  }
  return value;
}

/**
 * An amount in euros as Italians write it, with a decimal comma (`12,50`, `12`, `0,5`) → cents.
 * A dot is refused rather than guessed: in Italian it separates thousands.
 */
export function euroCents(value: string, option: string): number {
  const match = /^(\d{1,6})(?:,(\d{1,2}))?$/.exec(value.trim());
  if (!match) throw new OperatorError(`${option} is an amount in euros with a decimal comma (12,50), not "${value}"`);
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "0").padEnd(2, "0"));
  if (cents < 1) throw new OperatorError(`${option} must be more than 0,00 €`);
  return cents;
}
