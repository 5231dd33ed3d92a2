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
