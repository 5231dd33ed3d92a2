import { Link } from "react-router";
import { ProductCover } from "./product-cover";
import type { BookInfo } from "#server/library/reading.ts";
import { DASHBOARD_PATH } from "#shared/links.ts";

/** The top of the reader's pages: back to the dashboard, the cover, the title and its authors. */
export function ReaderBookHeader({ book, children }: { book: BookInfo; children?: React.ReactNode }) {
  return (
    <>
      <p>
        <Link to={DASHBOARD_PATH} className="link text-sm">
          <span aria-hidden="true">← </span>Torna alla dashboard
        </Link>
      </p>
      <header className="mt-4 flex items-start gap-5">
        <ProductCover cover={book.cover} className="max-w-20 shrink-0 sm:max-w-24" />
        <div>
          <p className="badge">{book.typeName}</p>
          <h1 className="mt-2 font-serif text-2xl font-bold text-brand md:text-3xl">{book.name}</h1>
          {book.shortAuthors && <p className="mt-1 text-muted">{book.shortAuthors}</p>}
          {book.edition && <p className="text-sm text-muted">{book.edition}</p>}
          {children}
        </div>
      </header>
    </>
  );
}
