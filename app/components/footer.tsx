import { Link } from "react-router";
import type { PublicSettings } from "#shared/context.ts";
import { Logo } from "./logo";
import { ACTIVATION_PROMPT_PATH, EDU_PATH, HELP_CENTER_PATH, shortLandingPath } from "#shared/links.ts";

type FooterLink = { label: string; href: string; internal?: boolean };

function columns(links: PublicSettings["links"]): { title: string; items: FooterLink[] }[] {
  const site = links.mainSite;
  return [
    {
      title: "Novalex Editore",
      items: [
        { label: "Chi siamo", href: `${site}/chi-siamo` },
        { label: "Pubblica con noi", href: `${site}/pubblica-con-noi` },
        { label: "Lavora con noi", href: `${site}/lavora-con-noi` },
        { label: "Ufficio stampa", href: `${site}/ufficio-stampa` },
      ],
    },
    {
      title: "Esplora",
      items: [
        { label: "Novità", href: `${site}/novita` },
        { label: "Riviste", href: `${site}/riviste` },
        { label: "Università", href: shortLandingPath("universita"), internal: true },
        { label: "Professionali", href: shortLandingPath("professionali"), internal: true },
        { label: "Enti e biblioteche", href: shortLandingPath("enti-biblioteche"), internal: true },
      ],
    },
    {
      title: "Prodotti",
      items: [
        { label: "Offerta EDU", href: EDU_PATH, internal: true },
        { label: "Biblioteca digitale", href: shortLandingPath("biblioteca-digitale"), internal: true },
        { label: "Corsi", href: links.coursePlatform },
        { label: "Piattaforma EDU", href: links.eduPlatform },
      ],
    },
    {
      title: "Servizio clienti",
      items: [
        { label: "Help Center", href: HELP_CENTER_PATH, internal: true },
        { label: "Attiva prodotto", href: ACTIVATION_PROMPT_PATH, internal: true },
        { label: "Contattaci", href: `${site}/contattaci` },
        { label: "Condizioni di vendita", href: `${links.shop}/condizioni-di-vendita` },
      ],
    },
  ];
}

const SOCIAL = [
  { label: "Facebook", href: "https://www.facebook.com/novalexeditore" },
  { label: "Instagram", href: "https://www.instagram.com/novalexeditore" },
  { label: "LinkedIn", href: "https://www.linkedin.com/company/novalexeditore" },
  { label: "YouTube", href: "https://www.youtube.com/@novalexeditore" },
];

function FooterAnchor({ item }: { item: FooterLink }) {
  const className = "text-white/80 hover:text-white hover:underline";
  return item.internal ? (
    <Link to={item.href} className={className}>
      {item.label}
    </Link>
  ) : (
    <a href={item.href} className={className}>
      {item.label}
    </a>
  );
}

/** The footer's classes: the root renders the element, the server its content (see FooterContent). */
export const FOOTER_CLASS = "mt-16 bg-brand-dark text-sm text-white";

/**
 * What the footer holds: the same for every visitor, so it is rendered once on the server and
 * the browser never renders it again (see lib/prerendered.tsx).
 */
export function FooterContent({ links, seller }: { links: PublicSettings["links"]; seller: PublicSettings["seller"] }) {
  const legal: FooterLink[] = [
    { label: "Termini e condizioni", href: `${links.shop}/condizioni-di-vendita` },
    { label: "Privacy", href: `${links.shop}/privacy` },
    { label: "Cookie", href: `${links.shop}/cookie` },
  ];
  return (
    <>
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-12 sm:grid-cols-2 lg:grid-cols-5">
        <div>
          <Logo inverted />
          <p className="mt-3 text-white/80">Diritto, università e professioni dal 1952.</p>
        </div>
        {columns(links).map((col) => (
          <nav key={col.title} aria-label={col.title}>
            <h2 className="mb-3 font-semibold uppercase tracking-wide text-white">{col.title}</h2>
            <ul className="space-y-2">
              {col.items.map((item) => (
                <li key={item.label}>
                  <FooterAnchor item={item} />
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <div className="border-t border-white/20">
        <div className="mx-auto flex max-w-7xl flex-col gap-4 px-4 py-6 md:flex-row md:items-center md:justify-between">
          <p className="text-white/80">
            © 2024 {seller.name} · P. IVA {seller.vat} · Tutti i diritti riservati
          </p>
          <nav aria-label="Note legali">
            <ul className="flex flex-wrap gap-4">
              {legal.map((item) => (
                <li key={item.label}>
                  <FooterAnchor item={item} />
                </li>
              ))}
            </ul>
          </nav>
          <nav aria-label="Social">
            <ul className="flex gap-4">
              {SOCIAL.map((s) => (
                <li key={s.label}>
                  <a href={s.href} rel="noopener" className="text-white/80 hover:text-white hover:underline">
                    {s.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        </div>
      </div>
    </>
  );
}
