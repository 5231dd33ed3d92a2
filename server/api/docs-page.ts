// A readable page of the JSON API (/api/docs/): each operation, its method, address and who may
// call it, with a link to the OpenAPI document that tells the rest.
import { escapeMarkup } from "#server/lib/escape.ts";
import { API_MESSAGES } from "./errors.ts";
import { URL_RULE } from "./manifest.ts";
import { routeOf, type Operation } from "./operation.ts";

export function renderApiDocs(operations: readonly Operation[], { nonce }: { nonce: string }): string {
  const modules = [...new Set(operations.map((op) => op.module))];
  const sections = modules
    .map((module) => {
      const rows = operations
        .filter((op) => op.module === module)
        .map(
          (op) =>
            `<tr><td><code>${escapeMarkup(op.model)}.${escapeMarkup(op.name)}</code></td><td>${op.method}</td>` +
            `<td><code>${escapeMarkup(routeOf(op))}</code></td><td>${op.auth === "customer" ? "cliente (Bearer)" : "pubblica"}</td>` +
            `<td>${escapeMarkup(op.summary)}</td></tr>`,
        )
        .join("");
      return `<section><h2>${escapeMarkup(module)}</h2><table><thead><tr><th scope="col">Operazione</th><th scope="col">Metodo</th><th scope="col">Indirizzo</th><th scope="col">Accesso</th><th scope="col">Descrizione</th></tr></thead><tbody>${rows}</tbody></table></section>`;
    })
    .join("");
  return `<!doctype html>
<html lang="it"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API dei servizi · Novalex Editore</title>
<style nonce="${escapeMarkup(nonce)}">body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1c2430}
h1,h2{color:#0b2545}table{border-collapse:collapse;width:100%;margin-bottom:2rem}th,td{border-bottom:1px solid #d5dbe3;padding:.4rem;text-align:left;vertical-align:top}code{font-size:.9em}</style></head>
<body><main><h1>API dei servizi</h1>
<p>Il manifest è a <a href="/api/manifest.json">/api/manifest.json</a>, il documento OpenAPI 3.1 a <a href="/api/openapi.json">/api/openapi.json</a>.
Le risposte sono <code>{"result": …}</code> oppure <code>{"error": {"description": …}}</code>. Le operazioni del cliente vogliono
l'intestazione <code>Authorization: Bearer &lt;token&gt;</code> con un token del provider d'identità del portale (flusso code + PKCE, scope <code>api</code>).</p>
<p>${escapeMarkup(URL_RULE)} Per esempio <code>/api/v1/order/order/verify_codiceattivazione/DEM0-EBK0-0000-0001</code> e
<code>/api/v1/order/order/verify_codiceattivazione/DEM0-EBK0-0000-0001/</code> sono la stessa operazione. Un indirizzo che non
è di nessuna operazione risponde 404 «${escapeMarkup(API_MESSAGES.unknownAddress)}».</p>
${sections}</main></body></html>`;
}
