// /my-products/ — 'I miei acquisti' (spec §2 'My products', §9): the products of paid orders
// ('Attivi') and of the others ('Inattivi') as cards, and below the 'Storico acquisti' of
// payments, 5 a page: page links without JavaScript, 'Carica altri' with it until a page has
// fewer than 5; between them, how the customer got each product and until when. Signed-in
// customers only; everything shown is theirs.
import { useState } from "react";
import { Link, useFetcher } from "react-router";
import type { Route } from "./+types/my-products";
import type { HistoryEntry, HistoryPage } from "#server/commerce/purchases.ts";
import type { SubscriptionView } from "#server/commerce/subscriptions.ts";
import { DASHBOARD_PATH, SUBSCRIPTION_PATH } from "#shared/links.ts";
import { SUBSCRIPTION_MESSAGES as SM, SUBSCRIPTION_STATUS_LABELS } from "#shared/subscription-messages.ts";
import { servicesContext, settingsContext } from "#shared/context.ts";
import { formatDate, withArticle } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { PaymentMethod } from "#app/components/payment-method.tsx";
import { PurchaseCard } from "#app/components/purchase-card.tsx";
import { ProductAccessList } from "#app/components/product-access.tsx";
import { PaymentRefunds } from "#app/components/payment-refunds.tsx";
import { TabLinks } from "#app/components/tab-links.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";
import { myProductsHref, readLocation, type PurchaseTab } from "#app/lib/my-products.ts";
import { PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { PageHeading } from "#app/components/page-heading.tsx";
import { BackLink } from "#app/components/back-link.tsx";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { tab, page } = readLocation(new URL(request.url).search);
  const { purchases, subscriptions, library } = context.get(servicesContext);
  const [products, history, subscription, access] = await Promise.all([
    purchases.myProducts(user.id),
    purchases.history(user.id, page),
    subscriptions.ofCustomer(user.id),
    library.provenance.ofCustomer(user.id),
  ]);
  return {
    subscription,
    access,
    tab,
    counts: { attivi: products.active.length, inattivi: products.inactive.length } satisfies Record<PurchaseTab, number>,
    cards: tab === "attivi" ? products.active : products.inactive,
    history,
    catalogueUrl: context.get(settingsContext).links.mainSite,
  };
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

const TABS: readonly { id: PurchaseTab; label: string; empty: string }[] = [
  { id: "attivi", label: M.tabActive, empty: M.noActive },
  { id: "inattivi", label: M.tabInactive, empty: M.noInactive },
];

export default function MyProducts({ loaderData }: Route.ComponentProps) {
  const { tab, counts, cards, history, catalogueUrl } = loaderData;
  const current = TABS.find((t) => t.id === tab)!;
  return (
    <div className="mx-auto max-w-7xl px-4 py-8 md:py-10">
      <BackLink to={DASHBOARD_PATH}>Torna alla dashboard</BackLink>
      <PageHeading title={M.title} className="mt-4" />
      {loaderData.subscription && <SubscriptionSummary subscription={loaderData.subscription} />}

      <section aria-labelledby="i-miei-prodotti" className="mt-8">
        <h2 id="i-miei-prodotti" className="section-title">
          {M.productsTitle}
        </h2>
        <TabLinks
          label="Stato dei prodotti"
          className="mt-4"
          current={tab}
          tabs={TABS.map((t) => ({
            id: t.id,
            label: t.label,
            href: `${myProductsHref({ tab: t.id, page: history.page })}#i-miei-prodotti`,
            count: counts[t.id],
          }))}
        />
        {cards.length > 0 ? (
          <ul aria-label={`Prodotti ${current.label.toLowerCase()}`} className="mt-6 grid gap-6 md:grid-cols-2 xl:grid-cols-3">
            {cards.map((card) => (
              <li key={card.id}>
                <PurchaseCard card={card} />
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-6 rounded-md border border-dashed border-line bg-white p-6 text-ink/85">
            {current.empty}.{" "}
            <a href={catalogueUrl} className="link">
              {M.catalogueLink}
            </a>
          </p>
        )}
      </section>

      {loaderData.access.length > 0 && <ProductAccessList products={loaderData.access} />}

      {/* Keyed by the page the address names: a new address starts the list again. */}
      <PurchaseHistory key={history.page} first={history} tab={tab} />
    </div>
  );
}

/** The EDU subscription in a line, and the way to its page (cancel, card, receipts). */
function SubscriptionSummary({ subscription: s }: { subscription: SubscriptionView }) {
  return (
    <section aria-labelledby="abbonamento" className="card mt-6 flex flex-wrap items-center justify-between gap-4 p-5">
      <div>
        <h2 id="abbonamento" className="font-semibold text-brand">
          {SM.title} <span className="badge ml-2">{SUBSCRIPTION_STATUS_LABELS[s.status]}</span>
        </h2>
        <p className="mt-1 text-sm">
          {s.nextCharge
            ? `Rata ${s.instalment} di ${s.instalments}, prossimo addebito ${withArticle("il", formatDate(s.nextCharge.at))} — ${formatEuro(s.nextCharge.amountCents)}`
            : s.status === "ended"
              ? `Terminato ${withArticle("il", formatDate(s.endedAt ?? s.paidUntil))}`
              : `Accesso a EDU fino ${withArticle("al", formatDate(s.paidUntil))}, nessun altro addebito`}
        </p>
      </div>
      <Link to={SUBSCRIPTION_PATH} className="button-outline">
        Gestisci l'abbonamento
      </Link>
    </section>
  );
}

/**
 * 'Storico acquisti': the page of the address, then, with JavaScript, the pages 'Carica altri'
 * fetches from this same loader, appended below.
 */
function PurchaseHistory({ first, tab }: { first: HistoryPage; tab: PurchaseTab }) {
  const hydrated = useHydrated();
  const fetcher = useFetcher<typeof loader>();
  const [more, setMore] = useState<HistoryPage[]>([]);
  const pages = [first, ...more];
  // The page just fetched joins the list when it is the next one (and only once).
  const fetched = fetcher.data?.history;
  if (fetched && fetched.page === pages[pages.length - 1]!.page + 1) pages.push(fetched);
  const last = pages[pages.length - 1]!;
  const entries = pages.flatMap((p) => p.entries);
  const loading = fetcher.state !== "idle";

  function loadMore() {
    setMore(pages.slice(1));
    void fetcher.load(myProductsHref({ tab, page: last.page + 1 }));
  }

  const pageHref = (page: number) => `${myProductsHref({ tab, page })}#storico-acquisti`;
  return (
    <section aria-labelledby="storico-acquisti" className="mt-12">
      <h2 id="storico-acquisti" className="section-title">
        {M.historyTitle}
      </h2>
      {entries.length > 0 ? (
        <ol aria-label={M.historyTitle} className="card mt-4 divide-y divide-line">
          {entries.map((entry) => (
            <HistoryRow key={entry.code} entry={entry} />
          ))}
        </ol>
      ) : (
        <p className="mt-4 text-ink/85">{M.historyEmpty}</p>
      )}
      {pages.length > 1 && (
        <p role="status" className="sr-only">
          {`Mostrati ${entries.length} pagamenti`}
        </p>
      )}
      <div className="mt-4 flex flex-wrap items-center gap-4">
        {(first.page > 1 || (!hydrated && first.hasNext)) && (
          <nav aria-label="Pagine dello storico acquisti" className="flex flex-wrap items-center gap-4 text-sm">
            {first.page > 1 && (
              <Link to={pageHref(first.page - 1)} className="link" rel="prev">
                {M.previousPage}
              </Link>
            )}
            <span className="text-muted">Pagina {first.page}</span>
            {!hydrated && first.hasNext && (
              <Link to={pageHref(first.page + 1)} className="link" rel="next">
                {M.nextPage}
              </Link>
            )}
          </nav>
        )}
        {hydrated && last.hasNext && (
          <button type="button" className="button-outline" onClick={loadMore} disabled={loading} aria-busy={loading}>
            {M.loadMore}
          </button>
        )}
      </div>
    </section>
  );
}

function HistoryRow({ entry }: { entry: HistoryEntry }) {
  const term = "text-xs font-semibold tracking-wide text-muted uppercase";
  return (
    <li className="grid gap-3 p-4 md:grid-cols-[1fr_auto] md:items-center">
      <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-[2fr_1fr_1.4fr_0.8fr_0.8fr]">
        <div className="sm:col-span-2 lg:col-span-1">
          <dt className={term}>Prodotti</dt>
          {/* Each title with its type (spec §2: a history entry shows the product types). */}
          {entry.products.map((product) => (
            <dd key={`${product.typeName}:${product.name}`} className="mt-0.5 text-ink">
              <span className="font-medium">{product.name}</span>
              <span className="text-muted"> · {product.typeName}</span>
            </dd>
          ))}
        </div>
        <div>
          <dt className={term}>{M.orderNumber}</dt>
          <dd className="mt-0.5 text-ink">{entry.orderCode}</dd>
        </div>
        <div>
          <dt className={term}>Metodo di pagamento</dt>
          <dd className="mt-0.5 text-ink">
            <PaymentMethod payment={entry} />
          </dd>
        </div>
        <div>
          <dt className={term}>Data</dt>
          <dd className="mt-0.5 text-ink">{formatDate(entry.paidAt)}</dd>
        </div>
        <div>
          <dt className={term}>Importo</dt>
          <dd className="mt-0.5 font-semibold text-ink">
            {formatEuro(entry.amountCents)}
            <PaymentRefunds refunds={entry.refunds} />
          </dd>
        </div>
      </dl>
      <Link to={entry.receiptHref} className="button-outline justify-self-start">
        {M.receipt}
        <span className="sr-only"> del pagamento {entry.code}</span>
      </Link>
    </li>
  );
}
