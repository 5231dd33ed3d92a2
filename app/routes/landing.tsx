import { Link } from "react-router";
import { servicesContext, settingsContext } from "#shared/context.ts";
import type { LandingCard } from "#server/content/service.ts";
import type { Route } from "./+types/landing";
import { SiteLink } from "#app/components/site-link.tsx";
import { Carousel } from "#app/components/carousel.tsx";
import { KeyIcon } from "#app/components/icons.tsx";
import { ProductCover } from "#app/components/product-cover.tsx";
import { formatEuro } from "#shared/euro.ts";
import { isLandingVariant } from "#shared/landing-variants.ts";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";
import { ACTIVATION_PROMPT_PATH } from "#shared/links.ts";

export async function loader({ params, request, context }: Route.LoaderArgs) {
  // /landingpage/<variant> or the short form /<variant>.
  const variant = params.variant ?? new URL(request.url).pathname.split("/")[1];
  if (!isLandingVariant(variant)) throw new Response("Not Found", { status: 404 });
  const page = await context.get(servicesContext).content.getLandingPage(variant);
  if (!page) throw new Response("Not Found", { status: 404 });
  return { page, salesEmail: context.get(settingsContext).salesEmail };
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

function PublicationCard({ card }: { card: LandingCard }) {
  const price = card.priceNote ?? (card.product ? formatEuro(card.product.priceCents) : null);
  return (
    <article className="card flex w-full flex-col p-4">
      {card.product && <ProductCover cover={card.product.cover} className="mx-auto max-w-40" />}
      <p className="kicker mt-4">{card.label ?? card.product?.typeName}</p>
      <h3 className="mt-1 font-serif text-lg font-bold text-brand">{card.title}</h3>
      {card.product?.shortAuthors && <p className="text-sm text-muted">{card.product.shortAuthors}</p>}
      <div className="mt-auto flex items-center justify-between pt-4">
        {price && <p className="text-lg font-bold text-ink">{price}</p>}
        {card.url && (
          <SiteLink href={card.url} className="button-outline">
            {card.cta ?? "Scopri"}
            <span className="sr-only">: {card.title}</span>
          </SiteLink>
        )}
      </div>
    </article>
  );
}

function TextCard({ card }: { card: LandingCard }) {
  return (
    <article className="card flex w-full flex-col p-6">
      {card.label && <p className="badge self-start">{card.label}</p>}
      <h3 className="mt-3 font-serif text-lg font-bold text-brand">{card.title}</h3>
      {card.text && <p className="mt-2 text-ink/80">{card.text}</p>}
      {card.priceNote && <p className="mt-2 font-semibold text-accent">{card.priceNote}</p>}
      {card.url && (
        <SiteLink href={card.url} className="link mt-auto pt-4">
          {card.cta ?? "Scopri di più"}
          <span className="sr-only">: {card.title}</span>
        </SiteLink>
      )}
    </article>
  );
}

/** A titled block of the page; `id` names its heading for the section's accessible name. */
function Section({
  id,
  title,
  className = "",
  children,
}: {
  id: string;
  title: string;
  className?: string;
  children: React.ReactNode;
}) {
  return (
    <section className={className} aria-labelledby={id}>
      <div className="mx-auto max-w-7xl px-4 py-14">
        <h2 id={id} className="section-title mb-8">
          {title}
        </h2>
        {children}
      </div>
    </section>
  );
}

export default function LandingPage({ loaderData }: Route.ComponentProps) {
  const { page, salesEmail } = loaderData;
  const { publication, news, collaborate, subject } = page.cards;
  return (
    <>
      <title>{`${page.title} · Novalex Editore`}</title>
      <meta name="description" content={page.metaDescription} />

      <section className="bg-brand text-white">
        <div className="mx-auto max-w-7xl px-4 py-16 md:py-24">
          {page.bannerEyebrow && (
            <p className="text-sm font-semibold uppercase tracking-widest text-gold">{page.bannerEyebrow}</p>
          )}
          <h1 className="mt-3 max-w-3xl font-serif text-4xl font-bold md:text-5xl">{page.bannerTitle}</h1>
          <p className="mt-5 max-w-2xl text-lg text-white/85">{page.bannerText}</p>
          <SiteLink href={page.bannerCtaUrl} className="button-primary mt-8 px-6 py-3 text-base">
            {page.bannerCtaLabel}
          </SiteLink>
        </div>
      </section>

      {publication.length > 0 && (
        <Section id="pubblicazioni" title={page.publicationsTitle}>
          <Carousel label={page.publicationsTitle}>
            {publication.map((card) => (
              <PublicationCard key={card.id} card={card} />
            ))}
          </Carousel>
        </Section>
      )}

      {page.showEduBlocks && subject.length > 0 && (
        <Section id="materie" title="Le materie di EDU" className="bg-white">
          <Carousel label="Le materie di EDU">
            {subject.map((card) => (
              <TextCard key={card.id} card={card} />
            ))}
          </Carousel>
          <p className="mt-8 rounded-lg border-l-4 border-gold bg-paper p-5">
            <strong>Sei un docente?</strong> I docenti che desiderano accedere alla piattaforma possono scrivere al nostro ufficio
            commerciale all'indirizzo{" "}
            <a className="link" href={`mailto:${salesEmail}`}>
              {salesEmail}
            </a>
            .
          </p>
        </Section>
      )}

      {news.length > 0 && (
        <Section id="novita" title={page.newsTitle}>
          <Carousel label={page.newsTitle}>
            {news.map((card) => (
              <TextCard key={card.id} card={card} />
            ))}
          </Carousel>
        </Section>
      )}

      <section className="bg-brand-light py-14" aria-labelledby="attiva">
        <div className="mx-auto flex max-w-7xl flex-col items-start gap-6 px-4 md:flex-row md:items-center md:justify-between">
          <div className="max-w-2xl">
            <h2 id="attiva" className="section-title">
              {page.activateTitle}
            </h2>
            <p className="mt-3 text-ink/80">{page.activateText}</p>
          </div>
          <Link to={ACTIVATION_PROMPT_PATH} className="button-primary px-6 py-3 text-base">
            <KeyIcon className="h-5 w-5" />
            Attiva prodotto
          </Link>
        </div>
      </section>

      {collaborate.length > 0 && (
        <Section id="collabora" title="Collabora con noi">
          <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
            {collaborate.map((card) => (
              <li key={card.id} className="flex">
                <TextCard card={card} />
              </li>
            ))}
          </ul>
        </Section>
      )}
    </>
  );
}
