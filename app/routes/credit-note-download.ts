// /ricevuta/:ordercode/:paymentcode/nota-di-credito/:creditnote — a credit note (FatturaPA TD04
// XML) of a payment, by its year and number (`2026-3`), linked from the receipt beside the
// invoice: a download, so a plain GET that works without JavaScript. Only the order's owner gets
// it; anyone else, an unknown credit note and a malformed :creditnote get 404.
import { servicesContext } from "#shared/context.ts";
import { customerOf } from "#app/lib/customer.server.ts";
import { notFoundFile, xmlAttachment } from "#app/lib/xml-attachment.server.ts";
import type { Route } from "./+types/credit-note-download";

export async function loader({ params, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { invoices } = context.get(servicesContext);
  const file = await invoices.download(user.id, params.ordercode, params.paymentcode, params.creditnote);
  if (!file) throw notFoundFile();
  return xmlAttachment(file);
}
