// /ricevuta/:ordercode/ and /ricevuta/:ordercode/:paymentcode/ — the receipt of an order (all its
// payments) or of one payment (spec §2 'Receipt page', §6). The page has no header and no footer (its handle).
// With JavaScript it opens the print dialog at once and, once printed or dismissed, goes back
// (to /my-products/ when it was opened directly); without, it is a print-ready page. Only the
// order's owner sees it: anyone else, and any unknown order or payment, goes to the home page.
import { useEffect } from "react";
import { HOME_PATH, MY_PRODUCTS_PATH } from "#shared/links.ts";
import type { ChromeHandle } from "#app/lib/page-chrome.ts";
import { Link, redirect, useLocation, useNavigate } from "react-router";
import type { Route } from "./+types/receipt";
import type { Receipt, ReceiptLine, ReceiptPayment } from "#server/commerce/purchases.ts";
import type { PostalAddress } from "#server/db/schema/index.ts";
import { formatVatRate } from "#shared/commerce-constants.ts";
import { servicesContext } from "#shared/context.ts";
import { formatDate } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { EmailAddress } from "#app/components/email-address.tsx";
import { Logo } from "#app/components/logo.tsx";
import { PaymentMethod } from "#app/components/payment-method.tsx";
import { PaymentRefunds } from "#app/components/payment-refunds.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { creditNoteNamed, invoiceNamed, PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";

// Made to be printed: no header and no footer.
export const handle: ChromeHandle = { chrome: { header: "none" } };

export async function loader({ params, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const paymentCode = "paymentcode" in params ? params.paymentcode : undefined;
  const receipt = await context.get(servicesContext).purchases.receipt(user.id, params.ordercode, paymentCode);
  // Not theirs, or no such order or payment: nothing is shown (spec §6).
  if (!receipt) throw redirect(HOME_PATH);
  return { receipt };
}

/** Opens the print dialog once the page is shown, then goes back where the customer came from. */
function usePrintThenGoBack() {
  const navigate = useNavigate();
  // "default": the page was opened directly (a new tab, a link in a mail): nothing to go back to.
  const openedDirectly = useLocation().key === "default";
  useEffect(() => {
    const back = () => {
      if (openedDirectly) void navigate(MY_PRODUCTS_PATH, { replace: true });
      else void navigate(-1);
    };
    window.addEventListener("afterprint", back, { once: true });
    window.print();
    return () => window.removeEventListener("afterprint", back);
  }, [navigate, openedDirectly]);
}

export default function ReceiptPage({ loaderData }: Route.ComponentProps) {
  const { receipt } = loaderData;
  const hydrated = useHydrated();
  usePrintThenGoBack();
  const title = receipt.payment ? M.paymentReceiptTitle : M.receiptTitle;
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 md:py-10 print:max-w-none print:p-0">
      <title>{`${title} ${receipt.payment?.code ?? receipt.orderCode} · Novalex Editore`}</title>
      <div className="mb-6 print:hidden flex flex-wrap items-center justify-between gap-4">
        <Link to={MY_PRODUCTS_PATH} className="link text-sm">
          <span aria-hidden="true">← </span>
          {M.backToPurchases}
        </Link>
        {hydrated ? (
          <button type="button" className="button-secondary" onClick={() => window.print()}>
            {M.print}
          </button>
        ) : (
          <p className="text-sm text-muted">
            <strong className="text-ink">{M.print}:</strong> {M.printHint}
          </p>
        )}
      </div>

      <article className="receipt card p-6 md:p-10" aria-labelledby="titolo-ricevuta">
        <div className="flex flex-col gap-6 border-b border-line pb-6 sm:flex-row sm:justify-between">
          <div>
            <Logo />
            <p className="mt-3 font-semibold text-ink">{receipt.seller.name}</p>
            <p className="text-sm text-ink/85">{receipt.seller.address}</p>
            <p className="text-sm text-ink/85">P. IVA {receipt.seller.vat}</p>
            {receipt.seller.rea && <CompanyRegister rea={receipt.seller.rea} />}
          </div>
          <div className="sm:text-right">
            <h1 id="titolo-ricevuta" className="font-serif text-3xl font-bold text-brand">
              {title}
            </h1>
            <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm sm:justify-end">
              <dt className="text-muted">{M.orderNumber}</dt>
              <dd className="font-semibold text-ink">{receipt.orderCode}</dd>
              <dt className="text-muted">Data dell'ordine</dt>
              <dd className="text-ink">{formatDate(receipt.orderDate)}</dd>
              {receipt.payment && (
                <>
                  <dt className="text-muted">Codice pagamento</dt>
                  <dd className="font-semibold text-ink">{receipt.payment.code}</dd>
                </>
              )}
              {receipt.status !== "payed" && (
                <>
                  <dt className="text-muted">Stato dell'ordine</dt>
                  <dd className="font-semibold text-accent-dark">{receipt.statusLabel}</dd>
                </>
              )}
            </dl>
          </div>
        </div>

        <Parties receipt={receipt} />
        <Lines receipt={receipt} />
        {receipt.payment ? (
          <OnePayment payment={receipt.payment} privateBuyer={privateBuyer(receipt)} />
        ) : (
          <OrderPayments receipt={receipt} />
        )}
      </article>
    </div>
  );
}

/** An invoice made out to a person or a body without a Partita IVA: its original is in their reserved area too. */
const privateBuyer = (receipt: Receipt) => receipt.billing !== null && !receipt.billing.isCompany;

/** What a company states of itself (art. 2250 c.c.): its register entry, share capital, sole shareholder, liquidation. */
function CompanyRegister({ rea }: { rea: NonNullable<Receipt["seller"]["rea"]> }) {
  const parts = [
    `REA ${rea.office}-${rea.number}`,
    rea.shareCapitalCents !== null && `Capitale sociale ${formatEuro(rea.shareCapitalCents)}`,
    rea.soleShareholder === "SU" && "Socio unico",
    rea.inLiquidation && "In liquidazione",
  ];
  return <p className="text-sm text-ink/85">{parts.filter(Boolean).join(" · ")}</p>;
}

function Address({ address }: { address: PostalAddress }) {
  return (
    <>
      <span className="block">
        {address.firstname} {address.lastname}
      </span>
      {address.at && <span className="block">Presso {address.at}</span>}
      <span className="block">{address.address}</span>
      <span className="block">
        {address.postcode} {address.city} ({address.province})
      </span>
    </>
  );
}

/** The buyer, the billing details asked for, and where the order was shipped. */
function Parties({ receipt }: { receipt: Receipt }) {
  const { buyer, billing, shipment } = receipt;
  const heading = "text-xs font-semibold tracking-wide text-muted uppercase";
  return (
    <div className="grid gap-6 border-b border-line py-6 text-sm sm:grid-cols-3">
      <section aria-labelledby="cliente">
        <h2 id="cliente" className={heading}>
          Cliente
        </h2>
        <p className="mt-1 text-ink">
          <span className="block font-medium">{[buyer.firstname, buyer.lastname].filter(Boolean).join(" ")}</span>
          {buyer.email && (
            <span className="block">
              <EmailAddress address={buyer.email} />
            </span>
          )}
        </p>
      </section>
      {billing && (
        <section aria-labelledby="fatturazione">
          <h2 id="fatturazione" className={heading}>
            Dati di fatturazione
          </h2>
          <p className="mt-1 text-ink">
            {billing.isCompany ? (
              <>
                {billing.name && <span className="block font-medium">{billing.name}</span>}
                {billing.vat && <span className="block">P. IVA {billing.vat}</span>}
                {billing.sdi && <span className="block">Codice SDI {billing.sdi}</span>}
              </>
            ) : (
              <>
                {/* An association's Denominazione. */}
                {billing.name && <span className="block font-medium">{billing.name}</span>}
                {billing.ssn && <span className="block">Codice Fiscale {billing.ssn}</span>}
              </>
            )}
            {billing.pec && (
              <span className="block">
                PEC <EmailAddress address={billing.pec} />
              </span>
            )}
            {billing.address && <Address address={billing.address} />}
          </p>
        </section>
      )}
      {shipment && (
        <section aria-labelledby="spedizione">
          <h2 id="spedizione" className={heading}>
            Spedizione
          </h2>
          <p className="mt-1 text-ink">
            <Address address={shipment} />
            {shipment.mobile && <span className="block">Cellulare {shipment.mobile}</span>}
          </p>
        </section>
      )}
    </div>
  );
}

function VatCell({ line, discounted }: { line: ReceiptLine; discounted: boolean }) {
  if (line.vatRateBps === null) return <span className="text-muted">{M.vatPaidByPublisher}</span>;
  return (
    <>
      {formatEuro(line.vatCents)} <span className="text-muted">({formatVatRate(line.vatRateBps)})</span>
      {discounted && line.discountCents > 0 && <span className="block text-xs text-muted">su {formatEuro(line.netCents)}</span>}
    </>
  );
}

/** A line's product: its description, its type, and a subscription's monthly price. */
function LineProduct({ line }: { line: ReceiptLine }) {
  return (
    <>
      <span className="block font-medium text-ink">{line.description}</span>
      <span className="block text-xs text-muted">{line.typeName}</span>
      {line.monthlyPriceCents !== null && (
        <span className="block text-xs text-muted">{formatEuro(line.monthlyPriceCents)} al mese</span>
      )}
    </>
  );
}

const unitPrice = (line: ReceiptLine) => (line.unitPriceCents === null ? "—" : formatEuro(line.unitPriceCents));
const lineDiscount = (line: ReceiptLine) => (line.discountCents > 0 ? `−${formatEuro(line.discountCents)}` : "—");

/**
 * The order's lines with the VAT each contains, then the totals. From the md breakpoint up, and
 * on paper, a table; below it each line is a block of labelled values, so that a phone shows
 * every amount without scrolling sideways. One of the two is displayed at a time, and the other
 * (display: none) is hidden from screen readers as well.
 */
function Lines({ receipt }: { receipt: Receipt }) {
  const discounted = receipt.discountCents > 0;
  const cell = "px-3 py-2 align-top";
  const number = `${cell} text-right whitespace-nowrap`;
  const taxed = receipt.lines.some((line) => line.vatRateBps !== null);
  const label = "text-muted";
  const value = "text-right text-ink";
  return (
    <section aria-labelledby="dettaglio" className="border-b border-line py-6">
      <h2 id="dettaglio" className="font-serif text-xl font-bold text-brand">
        Dettaglio dell'ordine
      </h2>
      <ul aria-label="Righe dell'ordine" className="mt-3 divide-y divide-line border-y border-line md:hidden print:hidden">
        {receipt.lines.map((line, i) => (
          <li key={i} className="py-3">
            <LineProduct line={line} />
            <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
              <dt className={label}>Quantità</dt>
              <dd className={value}>{line.quantity}</dd>
              <dt className={label}>Prezzo</dt>
              <dd className={value}>{unitPrice(line)}</dd>
              <dt className={label}>Importo</dt>
              <dd className={value}>{formatEuro(line.grossCents)}</dd>
              {discounted && (
                <>
                  <dt className={label}>Sconto</dt>
                  <dd className={value}>{lineDiscount(line)}</dd>
                </>
              )}
              <dt className={label}>IVA inclusa</dt>
              <dd className={value}>
                <VatCell line={line} discounted={discounted} />
              </dd>
            </dl>
          </li>
        ))}
      </ul>
      <table aria-label="Righe dell'ordine" className="mt-3 hidden w-full text-sm md:table print:table">
        <thead>
          <tr className="border-b border-line text-left text-xs tracking-wide text-muted uppercase">
            <th scope="col" className={cell}>
              Prodotto
            </th>
            <th scope="col" className={`${number}`}>
              Quantità
            </th>
            <th scope="col" className={number}>
              Prezzo
            </th>
            <th scope="col" className={number}>
              Importo
            </th>
            {discounted && (
              <th scope="col" className={number}>
                Sconto
              </th>
            )}
            <th scope="col" className={number}>
              IVA inclusa
            </th>
          </tr>
        </thead>
        <tbody>
          {receipt.lines.map((line, i) => (
            <tr key={i} className="border-b border-line last:border-0">
              <th scope="row" className={`${cell} text-left font-normal`}>
                <LineProduct line={line} />
              </th>
              <td className={number}>{line.quantity}</td>
              <td className={number}>{unitPrice(line)}</td>
              <td className={number}>{formatEuro(line.grossCents)}</td>
              {discounted && <td className={number}>{lineDiscount(line)}</td>}
              <td className={`${cell} text-right`}>
                <VatCell line={line} discounted={discounted} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <dl className="mt-4 ml-auto grid max-w-sm grid-cols-[1fr_auto] gap-y-1 text-sm [&>dd]:pl-6">
        <dt className="text-muted">Subtotale</dt>
        <dd className="text-right">{formatEuro(receipt.subtotalCents)}</dd>
        {discounted && (
          <>
            <dt className="text-muted">Sconto{receipt.couponCode ? ` (codice ${receipt.couponCode})` : ""}</dt>
            <dd className="text-right">−{formatEuro(receipt.discountCents)}</dd>
          </>
        )}
        {(receipt.shipment || receipt.shipmentCents > 0) && (
          <>
            <dt className="text-muted">Spedizione</dt>
            <dd className="text-right">{receipt.shipmentCents > 0 ? formatEuro(receipt.shipmentCents) : M.freeShipping}</dd>
          </>
        )}
        <dt className="border-t border-line pt-1 font-semibold text-ink">Totale</dt>
        <dd className="border-t border-line pt-1 text-right font-semibold text-ink">{formatEuro(receipt.totalCents)}</dd>
        {taxed && (
          <>
            <dt className="text-muted">di cui IVA</dt>
            <dd className="text-right">{formatEuro(receipt.vatCents)}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

/**
 * The payment's e-invoice, when one was issued: its number and date, for a private buyer where
 * the original also is (the Agenzia delle Entrate's reserved area), when SDI could not deliver it
 * where it is, and a plain link to the file (a download changes nothing), so it works without
 * JavaScript too; the links are not on paper. Below it the credit notes of the payment's
 * refunds, each named and linked the same way.
 */
function PaymentInvoice({ payment, privateBuyer }: { payment: ReceiptPayment; privateBuyer: boolean }) {
  if (!payment.invoice || !payment.invoiceHref) return null;
  return (
    <div className="mt-3 w-full space-y-1 text-sm">
      <p className="text-ink">{invoiceNamed(payment.invoice.number, payment.invoice.date)}</p>
      {payment.invoiceNotDelivered && <p className="text-ink/85">{M.invoiceNotDelivered}</p>}
      {privateBuyer && !payment.invoiceNotDelivered && <p className="text-ink/85">{M.invoiceOriginalInTaxArea}</p>}
      <p className="print:hidden">
        <a href={payment.invoiceHref} download className="link">
          {M.downloadInvoice}
        </a>
      </p>
      {payment.creditNotes.length > 0 && (
        <ul aria-label={M.creditNotes} className="space-y-1 pt-1">
          {payment.creditNotes.map((note) => (
            <li key={note.href}>
              <span className="block text-ink">{creditNoteNamed(note.number, note.date)}</span>
              <span className="block print:hidden">
                <a href={note.href} download className="link">
                  {M.downloadCreditNote}
                </a>
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A payment's receipt: that payment's method, date and amount. */
function OnePayment({ payment, privateBuyer }: { payment: ReceiptPayment; privateBuyer: boolean }) {
  return (
    <section aria-labelledby="pagamento" className="pt-6">
      <h2 id="pagamento" className="font-serif text-xl font-bold text-brand">
        Pagamento
      </h2>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
        <dt className="text-muted">Metodo di pagamento</dt>
        <dd>
          <PaymentMethod payment={payment} />
        </dd>
        <dt className="text-muted">Data</dt>
        <dd>{formatDate(payment.paidAt)}</dd>
        <dt className="font-semibold text-ink">Importo pagato</dt>
        <dd className="font-semibold text-ink">{formatEuro(payment.amountCents)}</dd>
        {payment.refunds.length > 0 && (
          <>
            <dt className="text-muted">{M.refundsLabel}</dt>
            <dd>
              <PaymentRefunds refunds={payment.refunds} className="" />
            </dd>
          </>
        )}
        {payment.vatCents > 0 && (
          <>
            <dt className="text-muted">di cui IVA</dt>
            <dd>{formatEuro(payment.vatCents)}</dd>
          </>
        )}
      </dl>
      <PaymentInvoice payment={payment} privateBuyer={privateBuyer} />
    </section>
  );
}

/** An order's receipt: every payment of the order, and what they brought in. */
function OrderPayments({ receipt }: { receipt: Receipt }) {
  return (
    <section aria-labelledby="pagamenti" className="pt-6">
      <h2 id="pagamenti" className="font-serif text-xl font-bold text-brand">
        Pagamenti
      </h2>
      {receipt.payments.length === 0 ? (
        <p className="mt-3 text-sm text-ink/85">
          {receipt.totalCents === 0 ? M.noPaymentForOrder : "Nessun pagamento ricevuto per questo ordine."}
        </p>
      ) : (
        <>
          <ul className="mt-3 divide-y divide-line text-sm">
            {receipt.payments.map((payment) => (
              <li key={payment.code} className="flex flex-wrap items-center justify-between gap-x-6 gap-y-1 py-2">
                <span>
                  <span className="block font-medium text-ink">
                    {formatDate(payment.paidAt)} · {payment.code}
                  </span>
                  <span className="block text-muted">
                    <PaymentMethod payment={payment} />
                  </span>
                </span>
                <span className="font-semibold text-ink">{formatEuro(payment.amountCents)}</span>
                <PaymentRefunds refunds={payment.refunds} className="w-full justify-end" />
                <PaymentInvoice payment={payment} privateBuyer={privateBuyer(receipt)} />
              </li>
            ))}
          </ul>
          <p className="mt-3 flex justify-between border-t border-line pt-2 text-sm font-semibold text-ink">
            <span>Totale pagato</span>
            <span>{formatEuro(receipt.paidCents)}</span>
          </p>
          {receipt.refundedCents > 0 && (
            <p className="mt-1 flex justify-between text-sm text-ink">
              <span>Totale rimborsato</span>
              <span>{formatEuro(receipt.refundedCents)}</span>
            </p>
          )}
        </>
      )}
    </section>
  );
}
