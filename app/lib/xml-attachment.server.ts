// The answer of a receipt's e-invoice and credit note downloads: the file under its SDI name, an
// attachment (the browser saves it), never kept by a cache (it holds the buyer's details).

export function xmlAttachment(file: { fileName: string; xml: string }): Response {
  return new Response(file.xml, {
    headers: {
      "Content-Type": "application/xml; charset=utf-8",
      "Content-Disposition": `attachment; filename="${file.fileName}"`,
      "Cache-Control": "private, no-store",
    },
  });
}

/** A download that is not there (or not the customer's): said in Italian, like every page. */
export function notFoundFile(): Response {
  return new Response("File non trovato: il documento richiesto non esiste o non è disponibile per il tuo account.", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, no-store" },
  });
}
