// Checks an SDI notification against SDI's message schema (MessaggiTypes 1.1: tests/support/sdi/,
// whose README says where it comes from) with libxml2 (xmllint-wasm, as the FatturaPA check does).
// The schema imports the W3C's XML-signature schema: the copy @authenio/samlify-xmllint-wasm
// ships is given to it offline.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { validateXML } from "xmllint-wasm";

const require = createRequire(import.meta.url);
const XMLDSIG_FILE = "xmldsig-core-schema.xsd";

let files: { schema: string; xmldsig: string } | undefined;

function schemaFiles() {
  if (files) return files;
  const schema = readFileSync(new URL("./sdi/MessaggiTypes_v1.1.xsd", import.meta.url), "utf8");
  if (!schema.includes(`schemaLocation="${XMLDSIG_FILE}"`))
    throw new Error("SDI's schema is not the one this check was written for");
  const xmldsig = readFileSync(require.resolve("@authenio/samlify-xmllint-wasm/schemas/xmldsig-core-schema.xsd"), "utf8");
  return (files = { schema, xmldsig });
}

/** The schema's complaints about the notification: none when it is valid. */
export async function sdiSchemaErrors(xml: string): Promise<string[]> {
  const { schema, xmldsig } = schemaFiles();
  const result = await validateXML({
    xml: [{ fileName: "notifica.xml", contents: xml }],
    schema: [{ fileName: "MessaggiTypes_v1.1.xsd", contents: schema }],
    preload: [{ fileName: XMLDSIG_FILE, contents: xmldsig }],
  });
  return result.errors.map((e) => e.message);
}
