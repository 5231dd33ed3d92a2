// /dashboard/ — what the customer owns and what to read next, shaped by their profession (spec §2
// 'Dashboard', §4 'Product button state', §6). Signed-in customers only; a profile without a
// profession completes first access first.
import { Link, redirect, useLocation } from "react-router";
import type { ChromeHandle } from "#app/lib/page-chrome.ts";
import type { Route } from "./+types/dashboard";
import { Carousel } from "#app/components/carousel.tsx";
import { PrerenderedElement } from "#app/lib/prerendered.tsx";
import { CONTACT_BOXES_CLASS } from "#app/components/contact-boxes.tsx";
import { LibraryTabs } from "#app/components/library-tabs.tsx";
import { ProductCard } from "#app/components/product-card.tsx";
import { ProductCover } from "#app/components/product-cover.tsx";
import { servicesContext } from "#shared/context.ts";
import { customerOf } from "#app/lib/customer.server.ts";
import { applyFilter, countByFilter, parseFilter } from "#app/lib/library-filter.ts";
import { withShow } from "#app/lib/modals.ts";
import type { LibraryItem } from "#server/library/types.ts";
import { suggestionCarousel, type SuggestionCarousel } from "#app/lib/suggestion-carousels.server.tsx";
import { contactBoxesPart, promoBoxPart, type PromoBoxPart } from "#app/lib/dashboard-boxes.server.tsx";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";
import type { SubscriptionNotice } from "#shared/subscription.ts";
import { formatDate, withArticle } from "#shared/format.ts";
import { DASHBOARD_PATH, EDU_PATH, FIRST_ACCESS_PATH, SUBSCRIPTION_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export const handle: ChromeHandle = { chrome: { dark: true } };

export async function loader({ context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  if (!user.professionId) throw redirect(FIRST_ACCESS_PATH);
  const { suggestions, promo, contactBoxes, ...page } = await context.get(servicesContext).library.dashboard.page(user);
  return {
    ...page,
    firstname: user.firstname,
    // The same for everyone of the profession: rendered once, see lib/dashboard-boxes.server and
    // lib/suggestion-carousels.server.
    promo: {
      topRight: promo.topRight && promoBoxPart(context, promo.topRight),
      left: promo.left && promoBoxPart(context, promo.left),
      numbered: promo.numbered.map((box) => promoBoxPart(context, box)),
    },
    contactBoxes: contactBoxesPart(context, contactBoxes),
    suggestions: {
      books: suggestionCarousel(context, "libri", suggestions.books, page.now),
      journals: suggestionCarousel(context, "riviste", suggestions.journals, page.now),
      courses: suggestionCarousel(context, "corsi", suggestions.courses, page.now),
    },
  };
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const { now, items, lastProduct, promo, contactBoxes, suggestions } = loaderData;
  const { search } = useLocation();
  const filter = parseFilter(new URLSearchParams(search).get("filtro"));
  const shown = applyFilter(items, filter);

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 md:py-10">
      <PageHeading title="La tua area">Ciao{loaderData.firstname ? `, ${loaderData.firstname}` : ""}!</PageHeading>
      {loaderData.subscriptionNotice && <SubscriptionNoticeBox notice={loaderData.subscriptionNotice} />}

      <div className="mt-6 grid gap-6 lg:grid-cols-3">
        <ContinueLearning item={lastProduct} now={now} />
        {promo.topRight && <PromoBox box={promo.topRight} />}
      </div>

      <div className={`mt-10 grid gap-6 ${promo.left ? "lg:grid-cols-[1fr_2fr]" : ""}`}>
        {promo.left && <PromoBox box={promo.left} />}
        <section aria-labelledby="i-tuoi-prodotti">
          <h2 id="i-tuoi-prodotti" className="section-title">
            I tuoi prodotti
          </h2>
          <LibraryTabs counts={countByFilter(items)} current={filter} basePath={DASHBOARD_PATH} anchor="i-tuoi-prodotti" />
          {shown.length > 0 ? (
            <ul aria-label="Prodotti" className={`mt-6 grid gap-6 sm:grid-cols-2 ${promo.left ? "" : "xl:grid-cols-3"}`}>
              {shown.map((item) => (
                <li key={item.productId}>
                  <ProductCard item={item} now={now} />
                </li>
              ))}
            </ul>
          ) : (
            <NoProducts />
          )}
        </section>
      </div>

      <section aria-labelledby="contatti" className="mt-12">
        <h2 id="contatti" className="sr-only">
          Contatti
        </h2>
        {contactBoxes && <PrerenderedElement as="ul" className={CONTACT_BOXES_CLASS} part={contactBoxes} />}
      </section>

      {promo.numbered.length > 0 && (
        <div className="mt-12 grid gap-6 md:grid-cols-2">
          {promo.numbered.map((box) => (
            <PromoBox key={box.areaCode} box={box} />
          ))}
        </div>
      )}

      <Suggestions title="Libri per te" carousel={suggestions.books} />
      <Suggestions title="Riviste per te" carousel={suggestions.journals} />
      <Suggestions title="Corsi per te" carousel={suggestions.courses} />
    </div>
  );
}

/** Why EDU stopped, when the subscription is the reason, and what the customer can do. */
function SubscriptionNoticeBox({ notice }: { notice: SubscriptionNotice }) {
  const [text, link] =
    notice.kind === "past_due"
      ? [
          "Il pagamento dell'abbonamento EDU non è riuscito: l'accesso a EDU è sospeso finché la rata non è pagata.",
          { to: SUBSCRIPTION_PATH, label: "Paga ora o aggiorna la carta" },
        ]
      : [
          `Il tuo abbonamento EDU è terminato ${withArticle("il", formatDate(notice.endedAt))}${
            notice.reason === "payment_failed" ? ": non siamo riusciti ad addebitare la rata." : ", come da tua disdetta."
          }`,
          { to: EDU_PATH, label: "Abbonati di nuovo" },
        ];
  return (
    <p role="status" className="mt-4 rounded-md border border-accent bg-accent/5 p-4 text-sm">
      {text}{" "}
      <Link to={link.to} className="link font-semibold">
        {link.label}
      </Link>
    </p>
  );
}

/** The last product (read or activated), or an invitation to activate the first one. */
function ContinueLearning({ item, now }: { item: LibraryItem | null; now: Date }) {
  const { pathname, search } = useLocation();
  return (
    <section aria-labelledby="continua" className="card flex gap-5 p-6 lg:col-span-2">
      {item ? (
        <>
          <div className="w-24 shrink-0">
            <ProductCover cover={item.cover} />
          </div>
          <div className="min-w-0 flex-1">
            <h2 id="continua" className="text-sm font-semibold tracking-wide text-muted uppercase">
              Continua a studiare
            </h2>
            <ProductCard item={item} now={now} compact />
          </div>
        </>
      ) : (
        <div>
          <h2 id="continua" className="font-serif text-2xl font-bold text-brand">
            Inizia da un libro
          </h2>
          <p className="mt-2 text-ink/85">
            Hai acquistato un libro con un codice di attivazione? Inseriscilo per leggere l'eBook e i contenuti digitali.
          </p>
          <Link to={withShow(pathname, search, "activateProduct")} className="button-primary mt-4">
            Inserisci codice
          </Link>
        </div>
      )}
    </section>
  );
}

/** A promo box, rendered once (see lib/dashboard-boxes.server); it fills its grid cell. */
function PromoBox({ box }: { box: PromoBoxPart }) {
  return <PrerenderedElement as="div" className="flex" part={box.prerendered} />;
}

function NoProducts() {
  const { pathname, search } = useLocation();
  return (
    <p className="mt-6 rounded-md border border-dashed border-line bg-white p-6 text-ink/85">
      Non hai ancora prodotti in questa sezione.{" "}
      <Link to={withShow(pathname, search, "activateProduct")} className="link">
        Attiva un prodotto
      </Link>{" "}
      con il codice stampato nel tuo libro.
    </p>
  );
}

function Suggestions({ title, carousel }: { title: string; carousel: SuggestionCarousel | null }) {
  if (!carousel) return null;
  return (
    <section aria-label={title} className="mt-12">
      <h2 className="section-title">{title}</h2>
      <div className="mt-4">
        <Carousel
          label={title}
          size="suggestions"
          count={carousel.count}
          track={<PrerenderedElement as="ul" className="carousel" size="suggestions" part={carousel.prerendered} />}
        />
      </div>
    </section>
  );
}
