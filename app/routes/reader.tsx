// /leggi/:productId/ — the built-in eBook reader (spec §3 'Reading session status', §7 'reader').
// GET shows a chapter: ?capitolo=<n>, else the one the customer is at, else the first. Choosing a
// chapter (the index, previous, next) is a form post that records it as the session's status and
// comes back to ?capitolo=<n>, so the reader works without JavaScript. Signed-in customers with
// valid access only: others get a 403 page, an expired customer only 'Contenuti aggiuntivi'.
import { Form, isRouteErrorResponse, redirect, useRouteError } from "react-router";
import type { Route } from "./+types/reader";
import { AlertBox } from "#app/components/form-fields.tsx";
import { NotFound } from "#app/components/not-found.tsx";
import { ReaderBookHeader } from "#app/components/reader-book-header.tsx";
import { ReaderRefusal } from "#app/components/reader-refusal.tsx";
import { ReaderSupplementary } from "#app/components/reader-supplementary.tsx";
import { servicesContext } from "#shared/context.ts";
import { customerOf } from "#app/lib/customer.server.ts";
import { readReply } from "#app/lib/form-reply.ts";
import { refuse } from "#app/lib/form-reply.server.ts";
import { READER_MESSAGES } from "#shared/reader-messages.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { readerPath } from "#shared/links.ts";
import type { Chapter, ChapterRef } from "#server/library/reading.ts";
import { formatDate } from "#shared/format.ts";

/** A chapter number as the address or the form gives it; anything else matches no chapter. */
function parsePosition(value: FormDataEntryValue | null): number | undefined {
  if (value === null) return undefined;
  return typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
}

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const position = parsePosition(new URL(request.url).searchParams.get("capitolo"));
  const view = await context
    .get(servicesContext)
    .library.reading.book({ userId: user.id, productId: params.productId, position });
  if (view.ok || view.reason === "expired") return view;
  if (view.reason === "not_found") throw new Response("Not Found", { status: 404 });
  throw new Response("Forbidden", { status: 403 });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const position = parsePosition((await request.formData()).get("position")) ?? Number.NaN;
  const { productId } = params;
  const result = await context.get(servicesContext).library.reading.setChapter({ userId: user.id, productId, position });
  if (result.ok) return redirect(`${readerPath(productId)}?capitolo=${result.chapter.position}`);
  switch (result.reason) {
    case "unknown_chapter":
      return refuse({ alert: { title: READER_MESSAGES.unknownChapter } });
    case "expired":
      // The page went stale while the access ran out: it now shows 'Contenuti aggiuntivi'.
      return redirectWithToast(context, readerPath(productId), {
        type: "error",
        title: READER_MESSAGES.accessExpired,
        message: READER_MESSAGES.accessExpiredText,
      });
    case "no_access":
      throw new Response("Forbidden", { status: 403 });
    case "not_found":
      throw new Response("Not Found", { status: 404 });
  }
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function Reader({ loaderData, actionData }: Route.ComponentProps) {
  if (!loaderData.ok) return <ReaderSupplementary {...loaderData} />;
  const { book, chapters, chapter, requestedMissing, expiresAt } = loaderData;
  const reply = readReply(actionData);

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 md:py-10">
      <title>{`${chapter ? `${chapter.title} · ` : ""}${book.name} · Novalex Editore`}</title>
      <ReaderBookHeader book={book}>
        {expiresAt && <p className="mt-2 text-sm text-muted">Accesso fino al {formatDate(expiresAt)}</p>}
      </ReaderBookHeader>

      <AlertBox alert={reply.alert} />
      {requestedMissing && (
        <p role="status" className="mt-6 rounded-md border border-gold bg-white p-4 text-sm">
          {READER_MESSAGES.requestedChapterMissing}
        </p>
      )}

      <div className="mt-8 grid gap-8 lg:grid-cols-[18rem_1fr]">
        <TableOfContents chapters={chapters} shown={chapter?.position ?? null} />
        {chapter ? (
          <ChapterText chapter={chapter} chapters={chapters} />
        ) : (
          <p className="card p-6 text-muted">{READER_MESSAGES.noText}</p>
        )}
      </div>
    </div>
  );
}

/** The index: every chapter is a button of one form, so choosing it records it. */
function TableOfContents({ chapters, shown }: { chapters: ChapterRef[]; shown: number | null }) {
  return (
    <nav aria-labelledby="indice" className="lg:sticky lg:top-4 lg:self-start">
      <h2 id="indice" className="font-serif text-xl font-bold text-brand">
        Indice
      </h2>
      <Form method="post" className="mt-3">
        <ol className="space-y-1">
          {chapters.map((c) => {
            const current = c.position === shown;
            return (
              <li key={c.position}>
                <button
                  type="submit"
                  name="position"
                  value={c.position}
                  aria-current={current ? "page" : undefined}
                  className={`w-full rounded-md px-3 py-2 text-left text-sm hover:bg-brand-light ${
                    current ? "bg-brand-light font-semibold text-brand" : "text-ink"
                  }`}
                >
                  <span className="text-muted">{c.position}.</span> {c.title}
                </button>
              </li>
            );
          })}
        </ol>
      </Form>
    </nav>
  );
}

function ChapterText({ chapter, chapters }: { chapter: Chapter; chapters: ChapterRef[] }) {
  const index = chapters.findIndex((c) => c.position === chapter.position);
  const previous = index > 0 ? chapters[index - 1] : undefined;
  const next = index >= 0 ? chapters[index + 1] : undefined;
  return (
    <article aria-labelledby="capitolo" className="card p-6 md:p-10">
      <p className="text-sm font-semibold tracking-wide text-accent uppercase">
        Capitolo {chapter.position} di {chapters.length}
      </p>
      <h2 id="capitolo" className="mt-2 font-serif text-2xl font-bold text-brand md:text-3xl">
        {chapter.title}
      </h2>
      <div className="mt-6 max-w-prose space-y-4 font-serif text-lg leading-relaxed">
        {chapter.paragraphs.map((p, i) => (
          <p key={i}>{p}</p>
        ))}
      </div>
      <Form method="post" className="mt-10 flex flex-wrap justify-between gap-4 border-t border-line pt-6">
        {previous ? (
          <button type="submit" name="position" value={previous.position} className="button-outline flex-col items-start">
            <span>
              <span aria-hidden="true">← </span>Capitolo precedente
            </span>
            <span className="text-xs font-normal">{previous.title}</span>
          </button>
        ) : (
          <span />
        )}
        {next && (
          <button type="submit" name="position" value={next.position} className="button-primary flex-col items-end">
            <span>
              Capitolo successivo<span aria-hidden="true"> →</span>
            </span>
            <span className="text-xs font-normal">{next.title}</span>
          </button>
        )}
      </Form>
    </article>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 403) return <ReaderRefusal />;
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  // Anything else is the root's unexpected error page.
  throw error;
}
