// /ricevuta/:ordercode/:paymentcode/fattura-elettronica.xml — the e-invoice (FatturaPA XML) of a
// payment, linked from its receipt: a download, so a plain GET that works without JavaScript.
// Only the order's owner gets it; anyone else, and a payment with no invoice, gets 404.
import { servicesContext } from "#shared/context.ts";
import { customerOf } from "#app/lib/customer.server.ts";
import { notFoundFile, xmlAttachment } from "#app/lib/xml-attachment.server.ts";
import type { Route } from "./+types/invoice-download";

export async function loader({ params, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const file = await context.get(servicesContext).invoices.download(user.id, params.ordercode, params.paymentcode);
  if (!file) throw notFoundFile();
  return xmlAttachment(file);
}
