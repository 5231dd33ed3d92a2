// 'Come hai ottenuto i tuoi prodotti' on /my-products/: for each product the customer has, or had,
// access to, how they got what gives access now and until when, what comes after it (EDU's months
// stack), or how they got it last and when that ended. A purchase's order links to its receipt.
import { Link } from "react-router";
import type { AccessGrant, ProductAccess } from "#server/library/types.ts";
import { receiptPath } from "#shared/links.ts";
import {
  PROVENANCE_MESSAGES as M,
  accessUntilLine,
  endedLine,
  nextGrantLine,
  obtainedLine,
} from "#shared/provenance-messages.ts";

export function ProductAccessList({ products }: { products: ProductAccess[] }) {
  return (
    <section aria-labelledby="accessi" className="mt-12">
      <h2 id="accessi" className="section-title">
        {M.title}
      </h2>
      <p className="mt-2 text-sm text-ink/85">{M.intro}</p>
      <ul aria-label={M.title} className="card mt-4 divide-y divide-line">
        {products.map((product) => (
          <li key={product.productId} className="p-4">
            <p className="kicker">{product.typeName}</p>
            <h3 className="mt-1 font-serif text-lg leading-snug font-bold break-words text-brand">{product.name}</h3>
            <ProductAccessLines access={product} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function ProductAccessLines({ access: { current, next, ended } }: { access: ProductAccess }) {
  const shown = current ?? ended;
  return (
    <div className="mt-1 text-sm">
      {shown && (
        <p>
          <WithReceiptLink grant={shown} text={obtainedLine(shown)} />
        </p>
      )}
      {current && <p className="font-medium">{accessUntilLine(current.expiresAt)}</p>}
      {ended?.expiresAt && <p className="font-medium">{endedLine(ended.expiresAt)}</p>}
      {next.map((grant, i) => (
        <p key={`${grant.startsAt.getTime()}:${i}`} className="mt-1 text-ink/85">
          <WithReceiptLink grant={grant} text={nextGrantLine(grant)} />
        </p>
      ))}
    </div>
  );
}

/** The line, its purchase's order code a link to the order's receipt (which every paid order has). */
function WithReceiptLink({ grant, text }: { grant: AccessGrant; text: string }) {
  const code = grant.source === "purchase" ? grant.orderCode : null;
  const at = code ? text.indexOf(code) : -1;
  if (!code || at < 0) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <Link to={receiptPath(code)} className="link">
        {code}
        <span className="sr-only"> ({M.receiptOf})</span>
      </Link>
      {text.slice(at + code.length)}
    </>
  );
}
