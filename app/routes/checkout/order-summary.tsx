// The checkout's summary (spec §2): the lines, subtotal with the item count, shipping with
// 'Consegna gratuita in 48 ore', the discount code ('Applica', then 'Codice sconto applicato'
// with a remove control), the discount and the total. The code's forms post on their own, so
// they work without JavaScript; every amount comes from the server.
import { Form } from "react-router";
import type { CheckoutView } from "#server/commerce/checkout.ts";
import { formatEuro } from "#shared/euro.ts";

export function CheckoutSummary({ order, editable }: { order: CheckoutView; editable: boolean }) {
  return (
    // First in the page, so on a phone it is first to see and to Tab to (total, discount code); on
    // a wide screen the checkout's grid puts it in the right column.
    <aside aria-labelledby="summary-title" className="card h-fit space-y-4 p-5 lg:sticky lg:top-4 lg:col-start-2 lg:row-start-1">
      <h2 id="summary-title" className="font-serif text-lg font-bold text-brand">
        Riepilogo ordine
      </h2>
      <ul className="space-y-3">
        {order.lines.map((line, i) => (
          <li key={i} className="flex justify-between gap-3 text-sm">
            <span>
              <span className="block font-semibold">
                {line.quantity} x {line.description}
              </span>
              <span className="text-muted">{line.typeName}</span>
              {line.monthlyPriceCents !== null && (
                <span className="block text-muted">{formatEuro(line.monthlyPriceCents)} al mese: oggi paghi il primo mese</span>
              )}
            </span>
            <span className="font-semibold whitespace-nowrap">{formatEuro(line.totalCents)}</span>
          </li>
        ))}
      </ul>
      <dl className="space-y-2 border-t border-line pt-3 text-sm">
        <div className="flex justify-between">
          <dt>
            Subtotale ({order.itemCount} {order.itemCount === 1 ? "articolo" : "articoli"})
          </dt>
          <dd>{formatEuro(order.subtotalCents)}</dd>
        </div>
        <div className="flex justify-between">
          <dt>
            Spedizione <span className="block text-xs text-muted">Consegna gratuita in 48 ore</span>
          </dt>
          <dd>{formatEuro(order.shipmentPriceCents)}</dd>
        </div>
        {order.discountCents > 0 && (
          <div className="flex justify-between text-accent-dark">
            <dt>Sconto</dt>
            <dd>-{formatEuro(order.discountCents)}</dd>
          </div>
        )}
        <div className="flex justify-between border-t border-line pt-2 text-base font-bold">
          <dt>Totale</dt>
          <dd>{formatEuro(order.totalCents + order.shipmentPriceCents)}</dd>
        </div>
      </dl>
      {order.couponCode ? (
        <Form method="post" className="flex items-center justify-between gap-2 rounded-md bg-brand-light p-3 text-sm">
          <span>
            Codice sconto applicato: <strong>{order.couponCode}</strong>
          </span>
          {editable && (
            <button
              type="submit"
              name="intent"
              value="coupon-remove"
              className="link"
              aria-label={`Rimuovi il codice ${order.couponCode}`}
            >
              Rimuovi
            </button>
          )}
        </Form>
      ) : (
        editable && (
          <details className="text-sm">
            <summary className="font-semibold">Hai un codice sconto?</summary>
            <Form method="post" className="mt-2 flex gap-2">
              <label htmlFor="couponcode" className="sr-only">
                Codice sconto
              </label>
              <input id="couponcode" name="couponcode" maxLength={40} autoComplete="off" className="field mt-0" />
              <button type="submit" name="intent" value="coupon-apply" className="button-outline">
                Applica
              </button>
            </Form>
          </details>
        )
      )}
    </aside>
  );
}
