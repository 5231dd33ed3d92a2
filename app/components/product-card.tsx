import type { LibraryItem } from "#server/library/types.ts";
import { obtainedLine } from "#shared/provenance-messages.ts";
import { NEW_BADGE, isNew, productActions, type ProductButton } from "#app/lib/product-state.ts";
import { ProductCover } from "./product-cover";
import { SiteLink } from "./site-link";

/** ISBN for books, ISSN for journals, otherwise the shop's SKU. */
export function productIdentifier(item: Pick<LibraryItem, "isbn" | "issn" | "sku">): string {
  if (item.isbn) return `ISBN ${item.isbn}`;
  if (item.issn) return `ISSN ${item.issn}`;
  return `SKU ${item.sku}`;
}

function CardButton({ button, name }: { button: ProductButton; name: string }) {
  // Several cards carry the same button text: the product name keeps each accessible name unique.
  const label = (
    <>
      {button.label}
      <span className="sr-only">: {name}</span>
    </>
  );
  if (button.kind === "post") {
    // A plain form: opening records the reading session (a state change), then the action
    // redirects to the reader. Without JavaScript it is an ordinary POST.
    return (
      <form method="post" action={button.action}>
        <button type="submit" className="button-primary">
          {label}
        </button>
      </form>
    );
  }
  if (button.kind === "reader") {
    // The reader is a page of its own: a full document navigation, as without JavaScript.
    return (
      <a href={button.href} className="button-outline">
        {label}
      </a>
    );
  }
  return (
    <SiteLink href={button.href} className="button-primary">
      {label}
    </SiteLink>
  );
}

/**
 * A product the customer owns, with the button its state calls for (spec §4). `compact`: the
 * details and buttons alone, for a box that frames the product and shows the cover itself (the
 * dashboard's continue-learning box).
 */
export function ProductCard({
  item,
  now,
  headingLevel = 3,
  compact = false,
}: {
  item: LibraryItem;
  now: Date;
  headingLevel?: 2 | 3 | 4;
  compact?: boolean;
}) {
  const Heading = `h${headingLevel}` as const;
  const actions = productActions(item, now);
  return (
    <article className={compact ? "flex w-full" : "card flex h-full w-full gap-4 p-4"} data-state={actions.state}>
      {!compact && (
        <div className="w-24 shrink-0">
          <ProductCover cover={item.cover} />
        </div>
      )}
      <div className="flex min-w-0 flex-1 flex-col">
        <div className="flex flex-wrap items-center gap-2">
          <p className="kicker">{item.typeName}</p>
          {isNew(item.pubdate, now) && <p className="badge-new">{NEW_BADGE}</p>}
          {actions.badge && (
            <p className="rounded-full bg-accent px-2 py-0.5 text-xs font-semibold text-white">{actions.badge}</p>
          )}
        </div>
        <Heading className="mt-1 font-serif text-lg font-bold leading-snug break-words hyphens-auto text-brand">
          {item.name}
        </Heading>
        {item.shortAuthors && <p className="text-sm text-ink/80">{item.shortAuthors}</p>}
        {item.edition && <p className="text-sm text-muted">{item.edition}</p>}
        <p className="mt-1 text-xs text-muted">{productIdentifier(item)}</p>
        {/* How it was obtained, in one line: until when is the line below (the spec's own). */}
        <p className="mt-1 text-xs text-muted">{obtainedLine(item.obtained)}</p>
        {actions.accessUntil && <p className="mt-2 text-sm font-medium text-ink">{actions.accessUntil}</p>}
        {item.reading && (
          <p className="mt-1 text-sm text-ink/80">
            Stai leggendo: <span className="font-medium text-ink">{item.reading.status}</span>
          </p>
        )}
        {actions.buttons.length > 0 && (
          <div className="mt-auto flex flex-wrap gap-2 pt-4">
            {actions.buttons.map((button) => (
              <CardButton key={button.label} button={button} name={item.name} />
            ))}
          </div>
        )}
      </div>
    </article>
  );
}
