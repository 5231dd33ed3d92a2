import { ReaderBookHeader } from "./reader-book-header";
import { READER_MESSAGES } from "#shared/reader-messages.ts";
import type { BookInfo, ChapterRef } from "#server/library/reading.ts";
import { formatDate } from "#shared/format.ts";

/**
 * What a customer whose access has expired still sees of a book (spec §4: 'Contenuti
 * aggiuntivi' with 'Acquista di nuovo' and 'Accesso scaduto'): its presentation and the index
 * of its chapters, never their text.
 */
export function ReaderSupplementary({
  book,
  chapters,
  expiredAt,
  buyLink,
}: {
  book: BookInfo;
  chapters: ChapterRef[];
  expiredAt: Date;
  buyLink: string;
}) {
  return (
    <section className="mx-auto max-w-3xl px-4 py-8 md:py-10">
      <title>{`${READER_MESSAGES.supplementary} · ${book.name} · Novalex Editore`}</title>
      <ReaderBookHeader book={book}>
        <p className="mt-3 inline-block rounded-full bg-accent/10 px-2.5 py-0.5 text-xs font-semibold text-accent-dark">
          {READER_MESSAGES.accessExpired}
        </p>
      </ReaderBookHeader>

      <section aria-labelledby="contenuti-aggiuntivi" className="card mt-8 p-6 md:p-8">
        <h2 id="contenuti-aggiuntivi" className="font-serif text-xl font-bold text-brand">
          {READER_MESSAGES.supplementary}
        </h2>
        <p className="mt-3">
          Il tuo accesso al testo del volume è scaduto il {formatDate(expiredAt)}. Puoi ancora consultarne la presentazione e
          l'indice dei capitoli; per tornare a leggerlo acquistalo di nuovo.
        </p>
        {book.description && (
          <>
            <h3 className="mt-6 font-semibold text-brand">Presentazione</h3>
            <p className="mt-2 text-muted">{book.description}</p>
          </>
        )}
        {chapters.length > 0 && (
          <>
            <h3 className="mt-6 font-semibold text-brand">Indice dei capitoli</h3>
            <ol className="mt-2 list-decimal space-y-1 pl-6 text-muted">
              {chapters.map((c) => (
                <li key={c.position}>{c.title}</li>
              ))}
            </ol>
          </>
        )}
        <p className="mt-8">
          <a href={buyLink} className="button-primary">
            {READER_MESSAGES.buyAgain}
          </a>
        </p>
      </section>
    </section>
  );
}
