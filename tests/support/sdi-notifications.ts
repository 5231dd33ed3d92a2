// SDI's notifications as an intermediary drops them into the portal's inbox, written by hand in
// the official format (SDI's message schema MessaggiTypes 1.1, as the Specifiche tecniche give it):
// RC delivered, MC not delivered, NS rejected with its errors. Named as SDI
// names them: the file's name without .xml, the type, a progressive (IT06363391001_0000A_NS_001.xml).
// SDI signs its messages (XAdES); the portal does not check the signature (decision 023), so these
// carry a signature element of the schema's shape whose values sign nothing.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SdiError } from "#server/db/schema/index.ts";

const MESSAGES = "http://www.fatturapa.gov.it/sdi/messaggi/v1.0";
/** The Agenzia's messages for private parties: other names for MC and NS, the same elements and a Hash. */
const MESSAGES_PRIVATI = "http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fattura/messaggi/v1.0";

export type NotificationFile = { fileName: string; xml: string };

type Common = {
  /** The portal's file the notification is about (IT06363391001_0000A.xml). */
  invoiceFileName: string;
  /** IdentificativoSdI: SDI's number of that file. */
  sdiId: string;
  messageId: string;
  /** DataOraRicezione: when SDI received the file. */
  receivedAt: Date;
  /** The notification's progressive in its name (001, 002 …). */
  progressive?: number;
  /** The Agenzia's names for private parties (RicevutaImpossibilitaRecapito, RicevutaScarto) instead of MessaggiTypes'. */
  privati?: boolean;
};

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** xsd:dateTime with its zone, as SDI writes it. */
const time = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, "Z");

const SIGNATURE = `<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="Signature1">
    <ds:SignedInfo>
      <ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>
      <ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>
      <ds:Reference URI="">
        <ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
        <ds:DigestValue>dGVzdCBkaWdlc3Q=</ds:DigestValue>
      </ds:Reference>
    </ds:SignedInfo>
    <ds:SignatureValue>dGVzdCBzaWduYXR1cmU=</ds:SignatureValue>
  </ds:Signature>`;

function notification(type: "RC" | "MC" | "NS", root: string, c: Common, body: string[]): NotificationFile {
  const namespace = c.privati ? MESSAGES_PRIVATI : MESSAGES;
  const lines = [
    `<IdentificativoSdI>${c.sdiId}</IdentificativoSdI>`,
    `<NomeFile>${c.invoiceFileName}</NomeFile>`,
    ...(c.privati ? ["<Hash>0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0</Hash>"] : []),
    `<DataOraRicezione>${time(c.receivedAt)}</DataOraRicezione>`,
    ...body,
  ];
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<types:${root} xmlns:types="${namespace}" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" versione="1.0">
  ${lines.join("\n  ")}
  ${SIGNATURE}
</types:${root}>
`;
  const base = c.invoiceFileName.replace(/\.xml$/, "");
  return { fileName: `${base}_${type}_${String(c.progressive ?? 1).padStart(3, "0")}.xml`, xml };
}

/** RicevutaConsegna: SDI delivered the file to the buyer's channel (SDI code or PEC). */
export function deliveryReceipt(c: Common & { deliveredAt: Date }): NotificationFile {
  return notification("RC", "RicevutaConsegna", c, [
    `<DataOraConsegna>${time(c.deliveredAt)}</DataOraConsegna>`,
    "<Destinatario>",
    "  <Codice>M5UXCR</Codice>",
    "  <Descrizione>Canale del destinatario</Descrizione>",
    "</Destinatario>",
    `<MessageId>${c.messageId}</MessageId>`,
  ]);
}

/** NotificaMancataConsegna: SDI could not deliver the file; it is in the buyer's tax drawer. */
export function nonDeliveryNotice(c: Common & { description?: string }): NotificationFile {
  return notification("MC", c.privati ? "RicevutaImpossibilitaRecapito" : "NotificaMancataConsegna", c, [
    ...(c.privati ? [`<DataMessaADisposizione>${time(c.receivedAt).slice(0, 10)}</DataMessaADisposizione>`] : []),
    ...(c.description ? [`<Descrizione>${escape(c.description)}</Descrizione>`] : []),
    `<MessageId>${c.messageId}</MessageId>`,
  ]);
}

/** NotificaScarto: SDI rejected the file, with its errors. */
export function rejectionNotice(c: Common & { errors: SdiError[] }): NotificationFile {
  return notification("NS", c.privati ? "RicevutaScarto" : "NotificaScarto", c, [
    "<ListaErrori>",
    ...c.errors.flatMap((e) => [
      "  <Errore>",
      `    <Codice>${e.code}</Codice>`,
      `    <Descrizione>${escape(e.description)}</Descrizione>`,
      ...(e.hint ? [`    <Suggerimento>${escape(e.hint)}</Suggerimento>`] : []),
      "  </Errore>",
    ]),
    "</ListaErrori>",
    `<MessageId>${c.messageId}</MessageId>`,
  ]);
}

/** SDI's errors of a rejection for a buyer's data wrong: two codes. */
export const BUYER_ERRORS: SdiError[] = [
  { code: "00311", description: "1.1.4 <CodiceDestinatario> non valido" },
  { code: "00305", description: "1.4.1.1.2 <IdCodice> non valido" },
];

/** Drops a notification into the inbox folder as an intermediary does: whole (written aside, then renamed). */
export function drop(inbox: string, file: NotificationFile | { fileName: string; xml: string | Buffer }) {
  mkdirSync(inbox, { recursive: true });
  const partial = path.join(inbox, `.${file.fileName}.partial`);
  writeFileSync(partial, file.xml);
  renameSync(partial, path.join(inbox, file.fileName));
}
