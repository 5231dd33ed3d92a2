// The development mailbox: mail the portal kept in its outbox because SMTP_URL is not set.
// It does not exist in production (404). Bodies hold live password links, so the page is
// never cached and its links are followed only when they point back to this portal.
import { Fragment } from "react";
import { data, Link } from "react-router";
import { servicesContext, settingsContext } from "#shared/context.ts";
import type { Route } from "./+types/dev.mailbox";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";
import { DEV_MAILBOX_PATH, devMailHtmlPath } from "#shared/links.ts";

const dateTime = new Intl.DateTimeFormat("it-IT", {
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZone: "Europe/Rome",
});

export function headers() {
  return { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  if (context.get(settingsContext).isProduction) throw new Response("Not Found", { status: 404 });
  const mail = context.get(servicesContext).mail;
  const url = new URL(request.url);
  const id = url.searchParams.get("id");
  const mode = mail.mode;

  if (id !== null) {
    const found = await mail.getOutboxMail(id);
    if (!found) return data({ view: "missing" as const, mode }, { status: 404 });
    return {
      view: "mail" as const,
      mode,
      origin: context.get(settingsContext).publicOrigin,
      mail: {
        id: found.id,
        to: found.to,
        subject: found.subject,
        createdAt: found.createdAt.toISOString(),
        text: found.text,
      },
    };
  }

  const mails = await mail.listOutbox();
  return {
    view: "list" as const,
    mode,
    mails: mails.map((m) => ({ id: m.id, to: m.to, subject: m.subject, createdAt: m.createdAt.toISOString() })),
  };
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

export default function DevMailbox({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <title>Posta in uscita (sviluppo) · Novalex Editore</title>
      <meta name="robots" content="noindex" />
      <div className="mx-auto max-w-5xl px-4 py-10">
        <h1 className="section-title">Posta in uscita (sviluppo)</h1>
        <p className="mt-3 text-muted">
          Questa pagina esiste solo fuori produzione. Mostra le e-mail che il portale non ha inviato perché <code>SMTP_URL</code>{" "}
          non è impostato.
        </p>
        {loaderData.mode === "smtp" && (
          <p className="mt-3 rounded-md border border-line bg-brand-light px-4 py-3 text-sm text-brand">
            <code>SMTP_URL</code> è impostato: le nuove e-mail vengono inviate via SMTP e non compaiono qui.
          </p>
        )}

        {loaderData.view === "list" && <MailList mails={loaderData.mails} />}

        {loaderData.view === "missing" && (
          <div className="mt-8">
            <BackLink />
            <p className="card mt-4 p-6">Questa e-mail non è nella posta in uscita.</p>
          </div>
        )}

        {loaderData.view === "mail" && <MailView mail={loaderData.mail} origin={loaderData.origin} />}
      </div>
    </>
  );
}

type MailSummary = { id: string; to: string; subject: string; createdAt: string };

function MailList({ mails }: { mails: MailSummary[] }) {
  if (mails.length === 0) return <p className="card mt-8 p-6">Nessuna e-mail nella posta in uscita.</p>;
  return (
    <div className="card mt-8 overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">E-mail nella posta in uscita, dalla più recente</caption>
        <thead className="border-b border-line bg-paper text-muted">
          <tr>
            <th scope="col" className="px-4 py-3 font-semibold">
              Data
            </th>
            <th scope="col" className="px-4 py-3 font-semibold">
              Destinatario
            </th>
            <th scope="col" className="px-4 py-3 font-semibold">
              Oggetto
            </th>
          </tr>
        </thead>
        <tbody>
          {mails.map((m) => (
            <tr key={m.id} className="border-b border-line last:border-b-0">
              <td className="px-4 py-3 whitespace-nowrap">
                <time dateTime={m.createdAt}>{dateTime.format(new Date(m.createdAt))}</time>
              </td>
              <td className="px-4 py-3 break-all">{m.to}</td>
              <td className="px-4 py-3">
                <Link to={`?id=${encodeURIComponent(m.id)}`} className="link">
                  {m.subject}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type MailDetail = MailSummary & { text: string };

function MailView({ mail, origin }: { mail: MailDetail; origin: string }) {
  return (
    <article className="mt-8">
      <BackLink />
      <div className="card mt-4 p-6">
        <h2 className="font-serif text-xl font-bold text-brand">{mail.subject}</h2>
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-muted">Destinatario</dt>
          <dd className="break-all">{mail.to}</dd>
          <dt className="text-muted">Data</dt>
          <dd>
            <time dateTime={mail.createdAt}>{dateTime.format(new Date(mail.createdAt))}</time>
          </dd>
        </dl>

        <h3 className="mt-6 font-semibold text-brand">Testo</h3>
        <pre className="mt-2 overflow-x-auto rounded-md border border-line bg-paper p-4 font-sans text-sm whitespace-pre-wrap wrap-break-word">
          <LinkifiedText text={mail.text} origin={origin} />
        </pre>

        <h3 className="mt-6 font-semibold text-brand">Anteprima HTML</h3>
        <iframe
          title="Anteprima HTML"
          sandbox=""
          src={devMailHtmlPath(mail.id)}
          className="mt-2 h-[36rem] w-full rounded-md border border-line bg-white"
        />
      </div>
    </article>
  );
}

function BackLink() {
  return (
    <Link to={DEV_MAILBOX_PATH} className="link">
      ← Tutte le e-mail
    </Link>
  );
}

/** Absolute http(s) URLs, and relative paths standing on their own ("/reset/…", not "e/o"). */
const URL_CANDIDATE = /(https?:\/\/[^\s<>"]+|(?<=^|\s)\/(?!\/)[^\s<>"]+)/;
const TRAILING_PUNCTUATION = /[.,;:!?)\]»'"]+$/;

/**
 * The text with the portal's own links made clickable. Only URLs whose origin is this portal's
 * (compared parsed, so "http://localhost:3000.example.com" is not) become links; the rest,
 * other sites included, stays text. No HTML is ever injected.
 */
function LinkifiedText({ text, origin }: { text: string; origin: string }) {
  const pieces = text.split(URL_CANDIDATE);
  return (
    <>
      {pieces.map((piece, i) => {
        // split() with one capture group puts the matches at the odd indexes.
        if (i % 2 === 0) return <Fragment key={i}>{piece}</Fragment>;
        const trailing = TRAILING_PUNCTUATION.exec(piece)?.[0] ?? "";
        const candidate = piece.slice(0, piece.length - trailing.length);
        const href = portalHref(candidate, origin);
        return (
          <Fragment key={i}>
            {href ? (
              <a href={href} className="link break-all">
                {candidate}
              </a>
            ) : (
              candidate
            )}
            {trailing}
          </Fragment>
        );
      })}
    </>
  );
}

/** The link's address when it leads to this portal, over http(s); null otherwise. */
function portalHref(candidate: string, origin: string): string | null {
  if (candidate === "") return null;
  let url: URL;
  try {
    url = new URL(candidate, origin);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.origin !== origin) return null;
  return url.href;
}
