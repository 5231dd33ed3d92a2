// Last-resort page for errors outside React Router (its own error boundary handles the rest).
// Self-contained: it must render even when the app build is broken.
import { HOME_PATH } from "#shared/links.ts";

const TEXTS = {
  badRequest: {
    title: "Richiesta non valida",
    body: "L'indirizzo o i dati inviati non sono validi. Controlla l'indirizzo e riprova.",
  },
  serverError: {
    title: "Si è verificato un errore",
    body: "Qualcosa non ha funzionato da parte nostra. Nessun dato è andato perso: riprova tra qualche istante.",
  },
};

export function renderErrorPage({ status, requestId, nonce }: { status: number; requestId: string; nonce: string }): string {
  const text = status < 500 ? TEXTS.badRequest : TEXTS.serverError;
  const id = requestId.replace(/[^A-Za-z0-9._-]/g, "");
  const safeNonce = nonce.replace(/[^A-Za-z0-9+/=]/g, "");
  return `<!doctype html>
<html lang="it"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${text.title} · Novalex Editore</title>
<style nonce="${safeNonce}">body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1c2430}a{color:#a4243b}</style></head>
<body>
<main>
<h1>${text.title}</h1>
<p>${text.body}</p>
<p>Se il problema persiste, scrivi all'assistenza indicando il codice <code>${id}</code>.</p>
<p><a href="${HOME_PATH}">Torna alla home</a></p>
</main>
</body></html>`;
}
