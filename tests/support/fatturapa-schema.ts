// Checks an e-invoice against the official FatturaPA XML schema with libxml2 (xmllint-wasm: the
// same validator as `xmllint --schema`, compiled to WebAssembly, so it installs with npm on any
// machine and CI needs nothing else).
//
// The schema: the official one of the Agenzia delle Entrate, version 1.2.1, as the npm package
// @digitalia/fatturapa ships it (no registry the project may use ships 1.2.2 or later, and nothing
// here is vendored by hand). It imports the W3C's XML-signature schema from w3.org; the copy
// @authenio/samlify-xmllint-wasm ships is used offline instead. Version 1.2.2 split the Natura
// code N2 into N2.1 and N2.2, which our files use for prices whose VAT the publisher paid at source
// (art. 74 DPR 633/72); so the 1.2.1 schema is given those two codes beside N2. Every other
// element and type our files use is the same in 1.2.1 and 1.2.2.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { validateXML } from "xmllint-wasm";

const require = createRequire(import.meta.url);
const XMLDSIG_URL = "http://www.w3.org/TR/2002/REC-xmldsig-core-20020212/xmldsig-core-schema.xsd";
const XMLDSIG_FILE = "xmldsig-core-schema.xsd";

let files: { schema: string; xmldsig: string } | undefined;

function schemaFiles() {
  if (files) return files;
  const official = readFileSync(require.resolve("@digitalia/fatturapa/src/schemas/Schema_1.2.1.xsd"), "utf8").replace(
    /^\uFEFF/,
    "",
  );
  const natureN2 = '<xs:enumeration value="N2">';
  if (!official.includes(XMLDSIG_URL) || !official.includes(natureN2)) {
    throw new Error("The FatturaPA schema is not the one this check was written for");
  }
  const schema = official
    .replace(XMLDSIG_URL, XMLDSIG_FILE)
    .replace(natureN2, `<xs:enumeration value="N2.1"/><xs:enumeration value="N2.2"/>${natureN2}`);
  const xmldsig = readFileSync(require.resolve("@authenio/samlify-xmllint-wasm/schemas/xmldsig-core-schema.xsd"), "utf8");
  return (files = { schema, xmldsig });
}

/** The schema's complaints about the file: none when it is valid. */
export async function fatturaPaSchemaErrors(xml: string): Promise<string[]> {
  const { schema, xmldsig } = schemaFiles();
  const result = await validateXML({
    xml: [{ fileName: "fattura.xml", contents: xml }],
    schema: [{ fileName: "fatturapa.xsd", contents: schema }],
    preload: [{ fileName: XMLDSIG_FILE, contents: xmldsig }],
  });
  return result.errors.map((e) => e.message);
}
