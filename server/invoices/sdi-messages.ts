// SDI's notifications about the files the portal sends it (docs/e-invoices.md;
// decision 023), read from their file name and XML. Pure: a file in, a notification or the reason
// it cannot be one out.
//
// The portal sends FPR12 invoices (to private parties) as their sender, so three notifications
// concern it: RC, the file was delivered (RicevutaConsegna); MC, it could not be delivered and is
// in the buyer's tax drawer (NotificaMancataConsegna, or RicevutaImpossibilitaRecapito as the
// Agenzia's messages for private parties name it); NS, it was rejected, with SDI's error codes
// (NotificaScarto, or RicevutaScarto). The others (NE, DT, AT) follow invoices to the public
// administration (FPA12), which the portal does not issue; MT, EC and SE are a recipient's.
//
// Read defensively: a size limit, no DTD (so no entities of any kind beyond XML's own), the
// elements the portal needs checked against the types of SDI's schema (MessaggiTypes), the
// others ignored, the signature neither required nor checked (decision 023).
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { SdiError, SdiNotificationType } from "#server/db/schema/index.ts";
import { fromRomeWallClock } from "#shared/rome-clock.ts";

/** Larger than any notification (an NS lists at most 200 errors): a bigger file is not one. */
export const MAX_NOTIFICATION_BYTES = 1024 * 1024;

/** The two families of SDI's message schemas: MessaggiTypes (fatturapa.gov.it) and the Agenzia's for private parties. */
const NAMESPACES = [
  "http://www.fatturapa.gov.it/sdi/messaggi/v1.0",
  "http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fattura/messaggi/v1.0",
];

const ROOTS: Readonly<Record<string, SdiNotificationType>> = {
  RicevutaConsegna: "RC",
  NotificaMancataConsegna: "MC",
  RicevutaImpossibilitaRecapito: "MC",
  NotificaScarto: "NS",
  RicevutaScarto: "NS",
};

/** What the other notification types are, for the reason a file of one is set aside. */
const NOT_OURS: Readonly<Record<string, string>> = {
  NE: "an outcome of a public body (NotificaEsito): FPA12 only, the portal sends FPR12",
  DT: "a deadline notice (NotificaDecorrenzaTermini): FPA12 only, the portal sends FPR12",
  AT: "an attestation after an MC to a public body (AttestazioneTrasmissioneFattura): FPA12 only",
  MT: "a recipient's metadata file (MT): the portal receives no invoices",
  EC: "a recipient's outcome (EC): the portal receives no invoices",
  SE: "a recipient's rejected outcome (SE): the portal receives no invoices",
};

/**
 * SDI's name for a notification: the file's name without its extension, the type, a progressive
 * of three digits (IT01234567890_00001_RC_001.xml).
 */
const NOTIFICATION_NAME = /^([A-Z]{2}[A-Za-z0-9]{1,28}_[A-Za-z0-9]{1,5})_([A-Z]{2})_(\d{3})\.xml$/;

export type SdiNotification = {
  type: SdiNotificationType;
  /** The notification's own file name. */
  fileName: string;
  /** SDI's number of the file (IdentificativoSdI). */
  sdiId: string;
  /** SDI's id of this message: with the file's number and the type, what makes it this notification. */
  messageId: string;
  /** The file it is about (NomeFile), as the portal named it (without a signed file's .p7m). */
  invoiceFileName: string;
  /** DataOraRicezione: when SDI received the file. */
  receivedAt: Date;
  /** When SDI delivered it (RC), made it available in the tax drawer (MC) or rejected it (NS: its reception). */
  outcomeAt: Date;
  /** An NS's errors (ListaErrori), in SDI's order. */
  errors: SdiError[];
  /** An MC's reason, when SDI gives one (Descrizione). */
  description: string | null;
  xml: string;
};

export type ReadNotification =
  | { ok: true; notification: SdiNotification }
  /** `unreadable`: not a notification SDI could have sent; `not_ours`: one about no file the portal sends. */
  | { ok: false; kind: "unreadable" | "not_ours"; reason: string };

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  // Values stay text: "00311" is a code, and IdentificativoSdI has up to 12 digits.
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** The local part of a qualified name (types:RicevutaConsegna → RicevutaConsegna). */
const localName = (qualified: string) => qualified.slice(qualified.indexOf(":") + 1);

/** The children of `node` whose local name is `name` (in SDI's messages children carry no prefix, but one would be harmless). */
function children(node: XmlNode, name: string): unknown[] {
  const found: unknown[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("@_") || localName(key) !== name) continue;
    found.push(...(Array.isArray(value) ? value : [value]));
  }
  return found;
}

/** The text of an element (a string, or an element with attributes whose text parser keeps as #text). */
function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "#text" in value) return String((value as XmlNode)["#text"]);
  if (value && typeof value === "object" && Object.keys(value).every((k) => k.startsWith("@_"))) return "";
  return undefined;
}

class Refused extends Error {}

/** The one text child `name` of `node`; refused when missing, empty or not as `valid` says. */
function required(node: XmlNode, name: string, valid: (value: string) => boolean, what: string): string {
  const [first, ...more] = children(node, name);
  const value = textOf(first)?.trim();
  if (value === undefined || value === "") throw new Refused(`${name} is missing`);
  if (more.length > 0) throw new Refused(`${name} appears more than once`);
  if (!valid(value)) throw new Refused(`${name} is not ${what}: "${value.slice(0, 60)}"`);
  return value;
}

function optional(node: XmlNode, name: string, valid: (value: string) => boolean, what: string): string | null {
  return children(node, name).length === 0 ? null : required(node, name, valid, what);
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})?$/;

/** xsd:dateTime; one without a zone is Italy's time, as SDI writes it. */
function instantOf(value: string): Date | null {
  const match =
    DATE_TIME.exec(value) ?? (DATE.test(value) ? DATE_TIME.exec(`${value.slice(0, 10)}T00:00:00${value.slice(10)}`) : null);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction = "", zone] = match;
  const wall = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${fraction.slice(0, 4)}Z`);
  // 2026-02-30 rolls over in Date: not a time SDI writes.
  if (Number.isNaN(wall.getTime()) || wall.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  if (!zone) return fromRomeWallClock(wall);
  if (zone === "Z") return wall;
  const sign = zone.startsWith("-") ? -1 : 1;
  const offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  return new Date(wall.getTime() - offsetMinutes * 60_000);
}

const isTime = (value: string) => instantOf(value) !== null;
/** IdentificativoSdI_Type: an integer of at most 12 digits. */
const isSdiId = (value: string) => /^\d{1,12}$/.test(value);
/** NomeFile_Type: at most 50 characters (a signed file's name ends in .xml.p7m). */
const isFileName = (value: string) => value.length <= 50 && /^[A-Za-z0-9_.-]+$/.test(value);
/** MessageId_Type: 1 to 14 characters. */
const isMessageId = (value: string) => value.length <= 14;
/** Codice_Type: 5 characters. */
const isErrorCode = (value: string) => value.length === 5;
/** Descrizione_Type: at most 255 characters. */
const isDescription = (value: string) => value.length <= 255;
const isText = () => true;

function errorsOf(root: XmlNode): SdiError[] {
  const [list, ...more] = children(root, "ListaErrori");
  if (!list || typeof list !== "object" || more.length > 0) throw new Refused("ListaErrori is missing");
  const entries = children(list as XmlNode, "Errore");
  if (entries.length === 0) throw new Refused("ListaErrori has no Errore");
  if (entries.length > 200) throw new Refused("ListaErrori has more than 200 errors");
  return entries.map((entry) => {
    if (!entry || typeof entry !== "object") throw new Refused("an Errore has no Codice");
    const node = entry as XmlNode;
    const hint = optional(node, "Suggerimento", isText, "text");
    return {
      code: required(node, "Codice", isErrorCode, "a code of 5 characters"),
      description: required(node, "Descrizione", isText, "text"),
      ...(hint ? { hint } : {}),
    };
  });
}

/** Reads a file found in SDI's inbox. `content` is its bytes (null when larger than the limit). */
export function readNotification(fileName: string, content: Buffer | null): ReadNotification {
  const refuse = (reason: string): ReadNotification => ({ ok: false, kind: "unreadable", reason });
  const name = NOTIFICATION_NAME.exec(fileName);
  if (!name) return refuse("its name is not an SDI notification's (<sender>_<progressive>_<type>_<nnn>.xml)");
  const [, base, nameType] = name as unknown as [string, string, string];
  if (!["RC", "MC", "NS"].includes(nameType)) {
    return { ok: false, kind: "not_ours", reason: NOT_OURS[nameType] ?? `an unknown notification type (${nameType})` };
  }
  if (content === null || content.length > MAX_NOTIFICATION_BYTES)
    return refuse(`it is larger than ${MAX_NOTIFICATION_BYTES} bytes`);

  const xml = content.toString("utf8");
  if (xml.includes("\uFFFD")) return refuse("it is not UTF-8 text");
  // No DTD: nothing can declare entities (external ones, or the billion laughs).
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return refuse("it declares a DTD or entities");
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) return refuse(`it is not well-formed XML (line ${wellFormed.err.line}: ${wellFormed.err.msg})`);

  let document: XmlNode;
  try {
    document = parser.parse(xml) as XmlNode;
  } catch (error) {
    return refuse(`it cannot be read as XML (${(error as Error).message})`);
  }
  const rootKeys = Object.keys(document).filter((key) => !key.startsWith("?") && !key.startsWith("#"));
  if (rootKeys.length !== 1) return refuse("it has no single root element");
  const rootName = rootKeys[0]!;
  const root = document[rootName];
  const type = ROOTS[localName(rootName)];
  if (!type || !root || typeof root !== "object") return refuse(`its root element ${rootName} is not an RC, MC or NS`);
  const prefix = rootName.includes(":") ? rootName.slice(0, rootName.indexOf(":")) : null;
  const namespace = (root as XmlNode)[prefix ? `@_xmlns:${prefix}` : "@_xmlns"];
  if (typeof namespace !== "string" || !NAMESPACES.includes(namespace)) {
    return refuse(`its root element is not in SDI's messages namespace (${String(namespace)})`);
  }
  if (type !== nameType) return refuse(`its name says ${nameType} but it is ${localName(rootName)}`);

  try {
    const node = root as XmlNode;
    const sdiId = required(node, "IdentificativoSdI", isSdiId, "a number of up to 12 digits");
    const invoiceFile = required(node, "NomeFile", isFileName, "a file name");
    const received = required(node, "DataOraRicezione", isTime, "a date and time");
    const messageId = required(node, "MessageId", isMessageId, "an id of up to 14 characters");
    const invoiceFileName = invoiceFile.replace(/\.p7m$/i, "");
    if (invoiceFileName.replace(/\.xml$/i, "") !== base) {
      throw new Refused(`its name is not that of its file ${invoiceFile}`);
    }
    const receivedAt = instantOf(received)!;
    let outcomeAt = receivedAt;
    let errors: SdiError[] = [];
    let description: string | null = null;
    if (type === "RC") outcomeAt = instantOf(required(node, "DataOraConsegna", isTime, "a date and time"))!;
    if (type === "MC") {
      description = optional(node, "Descrizione", isDescription, "a text of up to 255 characters");
      const available = optional(node, "DataMessaADisposizione", isTime, "a date");
      if (available) outcomeAt = instantOf(available)!;
    }
    if (type === "NS") errors = errorsOf(node);
    return {
      ok: true,
      notification: { type, fileName, sdiId, messageId, invoiceFileName, receivedAt, outcomeAt, errors, description, xml },
    };
  } catch (error) {
    if (error instanceof Refused) return refuse(error.message);
    throw error;
  }
}
