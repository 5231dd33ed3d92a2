// Checks an e-invoice against the official FatturaPA XML schema with libxml2 (xmllint-wasm: the
// same validator as `xmllint --schema`, compiled to WebAssembly, so it installs with npm on any
// machine and CI needs nothing else).
//
// The schema: the Agenzia delle Entrate's own file, version 1.2.2, kept with its origin in the
// project's shared folder beside the repository (../shared/data/fatturapa/, its README says where
// it comes from; CI clones the repository beside it). It is used as it is, untouched. It imports the
// W3C's XML-signature schema from w3.org; the copy that @authenio/samlify-xmllint-wasm ships is
// given to libxml2 under that address instead, so the check never goes online.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { validateXML } from "xmllint-wasm";

const require = createRequire(import.meta.url);
/** The project's shared folder holding the official FatturaPA files: `<repository>/../shared/data/fatturapa/`. */
export const FATTURAPA_DATA = fileURLToPath(new URL("../../../shared/data/fatturapa/", import.meta.url));
const SCHEMA_FILE = "Schema_del_file_xml_FatturaPA_v1.2.2.xsd";
const XMLDSIG_URL = "http://www.w3.org/TR/2002/REC-xmldsig-core-20020212/xmldsig-core-schema.xsd";

let files: { schema: string; xmldsig: string } | undefined;

function schemaFiles() {
  if (files) return files;
  const schema = readFileSync(FATTURAPA_DATA + SCHEMA_FILE, "utf8").replace(/^\uFEFF/, "");
  if (!schema.includes('version="1.2.2"') || !schema.includes(XMLDSIG_URL)) {
    throw new Error(`${FATTURAPA_DATA}${SCHEMA_FILE} is not the FatturaPA 1.2.2 schema this check was written for`);
  }
  const xmldsig = readFileSync(require.resolve("@authenio/samlify-xmllint-wasm/schemas/xmldsig-core-schema.xsd"), "utf8");
  return (files = { schema, xmldsig });
}

/** The schema's complaints about the file: none when it is valid. */
export async function fatturaPaSchemaErrors(xml: string): Promise<string[]> {
  const { schema, xmldsig } = schemaFiles();
  const result = await validateXML({
    xml: [{ fileName: "fattura.xml", contents: xml }],
    schema: [{ fileName: SCHEMA_FILE, contents: schema }],
    // libxml2 resolves the import's address among the preloaded files: no network.
    preload: [{ fileName: XMLDSIG_URL, contents: xmldsig }],
  });
  return result.errors.map((e) => e.message);
}
