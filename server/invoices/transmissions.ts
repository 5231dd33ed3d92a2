// Each file an invoice is sent to SDI as (invoice_transmissions; decision 023). The invoice's row
// holds its latest file; the file's own row is made when the file is first handed over (or, for a
// file sent before this table existed, when SDI's first notification about it is read), and is
// where SDI's outcome is kept.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Queryable } from "#server/db/client.ts";
import { invoices, invoiceTransmissions } from "#server/db/schema/index.ts";

/**
 * The row of the invoice's file called `fileName`, made from the invoice when it has none; null
 * when no invoice of the portal's has (or had) that file. Safe to repeat and to race.
 */
export async function transmissionOf(db: Queryable, fileName: string) {
  const [existing] = await db.select().from(invoiceTransmissions).where(eq(invoiceTransmissions.fileName, fileName));
  if (existing) return existing;
  const [invoice] = await db
    .select({ id: invoices.id, xml: invoices.xml, issuedAt: invoices.issuedAt, transmittedAt: invoices.transmittedAt })
    .from(invoices)
    .where(eq(invoices.fileName, fileName));
  if (!invoice) return null;
  await db
    .insert(invoiceTransmissions)
    .values({ invoiceId: invoice.id, fileName, xml: invoice.xml, createdAt: invoice.issuedAt, sentAt: invoice.transmittedAt })
    .onConflictDoNothing({ target: invoiceTransmissions.fileName });
  const [made] = await db.select().from(invoiceTransmissions).where(eq(invoiceTransmissions.fileName, fileName));
  return made ?? null;
}

/**
 * The transmitter took the invoice's file `fileName` at `at` (or SDI's notification about it shows
 * it did); true when this call recorded it (not already recorded).
 */
export async function markSent(db: Queryable, invoiceId: string, fileName: string, at: Date): Promise<boolean> {
  const marked = await db
    .update(invoices)
    .set({ transmittedAt: at })
    .where(and(eq(invoices.id, invoiceId), eq(invoices.fileName, fileName), isNull(invoices.transmittedAt)))
    .returning({ id: invoices.id });
  await db
    .update(invoiceTransmissions)
    .set({ sentAt: sql`coalesce(${invoiceTransmissions.sentAt}, ${at.toISOString()}::timestamptz)` })
    .where(eq(invoiceTransmissions.fileName, fileName));
  return marked.length > 0;
}
