// The FatturaPA XML of one e-invoice (format FPR12: an invoice to a private party, business or
// consumer; schema 1.2.x of the Agenzia delle Entrate). Pure: the document's data in, the file's
// text out. Amounts come in as integer cents that include their VAT (the portal's prices do); the
// VAT is taken out here by the portal's one rule (server/commerce/totals.ts), per line for the
// lines and per rate for the summary, any cent between the two written as the summary's
// Arrotondamento, so that the file's figures agree exactly and add up to what was paid.
import type { InvoiceSeller } from "../config.ts";
import { vatByRate, vatIncluded } from "../commerce/totals.ts";
import { escapeMarkup } from "../lib/escape.ts";

const NAMESPACE = "http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2";
/** Prices that include VAT paid at source by the publisher (art. 74 DPR 633/72): "non soggette, altri casi". */
const VAT_AT_SOURCE_NATURE = "N2.2";
const VAT_AT_SOURCE_LAW = "IVA assolta dall'editore, art. 74 c. 1 lett. c) DPR 633/72";
/** The recipient's code when SDI delivers by PEC, or to a consumer's tax drawer. */
const NO_RECIPIENT_CODE = "0000000";

type InvoiceAddress = { street: string; postcode: string; city: string; province: string };

/** Who the invoice is made out to (CessionarioCommittente), and where SDI delivers it. */
export type InvoiceBuyer = (
  { kind: "company"; vat: string; name: string } | { kind: "person"; fiscalCode: string; firstname: string; lastname: string }
) & {
  address: InvoiceAddress;
  /** The Codice Univoco SDI (companies); null or "0000000" when the invoice goes by PEC. */
  sdiCode: string | null;
  pec: string | null;
};

export type InvoiceLine = {
  description: string;
  quantity: number;
  /** What was paid for the line, VAT included. */
  grossCents: number;
  /** The VAT rate contained, in basis points; null: VAT paid at source by the publisher. */
  rateBps: number | null;
  /** The period the line pays for (a month of a subscription), as YYYY-MM-DD, first and last day. */
  period?: { from: string; to: string };
};

export type InvoiceDocument = {
  seller: InvoiceSeller;
  buyer: InvoiceBuyer;
  /** ProgressivoInvio: up to 5 capitals or digits, unique among the seller's files (its file name's). */
  progressive: string;
  /** Numero, e.g. "WEB/17". */
  number: string;
  /** Data, YYYY-MM-DD. */
  date: string;
  lines: InvoiceLine[];
  /** Causale: free notes (the order, the payment). */
  notes: string[];
};

/** Characters typed in names and titles that FatturaPA's Latin-1 strings have no place for. */
const TYPOGRAPHIC: Readonly<Record<string, string>> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u2013": "-",
  "\u2014": "-",
  "\u2026": "...",
  "\u20AC": "EUR",
  "\u00A0": " ",
};

/**
 * Text as FatturaPA's String…LatinType takes it: Latin-1 only (typographic quotes and dashes
 * made plain, other letters without their accents, anything else "?"), one line, at most `max`
 * characters.
 */
export function latin(text: string, max: number): string {
  let out = "";
  for (const ch of text.normalize("NFC")) {
    const replaced = TYPOGRAPHIC[ch];
    if (replaced !== undefined) out += replaced;
    else if (ch.codePointAt(0)! <= 0xff) out += ch;
    else {
      const stripped = ch.normalize("NFD").replace(/\p{M}/gu, "");
      out += stripped !== "" && [...stripped].every((c) => c.codePointAt(0)! <= 0xff) ? stripped : "?";
    }
  }
  return [...out.replace(/[\p{Cc}\s]+/gu, " ").trim()].slice(0, max).join("");
}

/** 1234 → "12.34" */
export function amount(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** cents ÷ quantity in euro with up to 8 decimals (PrezzoUnitario): 1001 ÷ 3 → "3.33666667". */
export function unitAmount(cents: number, quantity: number): string {
  const e8 = Math.round((cents * 1_000_000) / quantity);
  const text = `${Math.trunc(e8 / 100_000_000)}.${String(e8 % 100_000_000).padStart(8, "0")}`;
  return text.replace(/(\.\d\d\d*?)0+$/, "$1");
}

/** 400 → "4.00" */
const rate = (rateBps: number | null) => amount(rateBps ?? 0);

const leaf = (name: string, value: string) => `<${name}>${escapeMarkup(value)}</${name}>`;
const node = (name: string, ...children: (string | false | null)[]) => `<${name}>${children.filter(Boolean).join("")}</${name}>`;

const address = (a: InvoiceAddress) =>
  node(
    "Sede",
    leaf("Indirizzo", latin(a.street, 60)),
    leaf("CAP", a.postcode),
    leaf("Comune", latin(a.city, 60)),
    leaf("Provincia", a.province),
    leaf("Nazione", "IT"),
  );

const vatId = (vat: string) => node("IdFiscaleIVA", leaf("IdPaese", "IT"), leaf("IdCodice", vat));

function seller(s: InvoiceSeller) {
  return node(
    "CedentePrestatore",
    node(
      "DatiAnagrafici",
      vatId(s.vat),
      s.fiscalCode !== null && leaf("CodiceFiscale", s.fiscalCode),
      node("Anagrafica", leaf("Denominazione", latin(s.name, 80))),
      leaf("RegimeFiscale", s.taxRegime),
    ),
    address(s),
    s.rea !== null &&
      node("IscrizioneREA", leaf("Ufficio", s.rea.office), leaf("NumeroREA", s.rea.number), leaf("StatoLiquidazione", "LN")),
  );
}

function buyer(b: InvoiceBuyer) {
  const identity =
    b.kind === "company"
      ? [vatId(b.vat), node("Anagrafica", leaf("Denominazione", latin(b.name, 80)))]
      : [
          leaf("CodiceFiscale", b.fiscalCode),
          node("Anagrafica", leaf("Nome", latin(b.firstname, 60)), leaf("Cognome", latin(b.lastname, 60))),
        ];
  return node("CessionarioCommittente", node("DatiAnagrafici", ...identity), address(b.address));
}

/** Where SDI delivers: the buyer's code; otherwise "0000000", and their PEC when they gave one. */
function recipientOf(b: InvoiceBuyer): { code: string; pec: string | null } {
  if (b.sdiCode && b.sdiCode !== NO_RECIPIENT_CODE) return { code: b.sdiCode, pec: null };
  return { code: NO_RECIPIENT_CODE, pec: b.pec };
}

/** The invoice's lines and summary: each line's taxable amount, and per rate the VAT of the document. */
export function invoiceFigures(lines: readonly InvoiceLine[]) {
  const netLines = lines.map((line) => ({
    ...line,
    netCents: line.grossCents - (line.rateBps === null ? 0 : vatIncluded(line.grossCents, line.rateBps)),
  }));
  const summary = vatByRate(lines.map((line) => ({ cents: line.grossCents, rateBps: line.rateBps }))).map((group) => {
    const linesNet = netLines.filter((l) => l.rateBps === group.rateBps).reduce((sum, l) => sum + l.netCents, 0);
    return { ...group, roundingCents: group.taxableCents - linesNet };
  });
  return { lines: netLines, summary, totalCents: lines.reduce((sum, line) => sum + line.grossCents, 0) };
}

export function fatturaPaXml(doc: InvoiceDocument): string {
  const figures = invoiceFigures(doc.lines);
  const recipient = recipientOf(doc.buyer);
  const header = node(
    "FatturaElettronicaHeader",
    node(
      "DatiTrasmissione",
      node("IdTrasmittente", leaf("IdPaese", "IT"), leaf("IdCodice", doc.seller.vat)),
      leaf("ProgressivoInvio", doc.progressive),
      leaf("FormatoTrasmissione", "FPR12"),
      leaf("CodiceDestinatario", recipient.code),
      recipient.pec !== null && leaf("PECDestinatario", recipient.pec),
    ),
    seller(doc.seller),
    buyer(doc.buyer),
  );
  const body = node(
    "FatturaElettronicaBody",
    node(
      "DatiGenerali",
      node(
        "DatiGeneraliDocumento",
        leaf("TipoDocumento", "TD01"),
        leaf("Divisa", "EUR"),
        leaf("Data", doc.date),
        leaf("Numero", doc.number),
        leaf("ImportoTotaleDocumento", amount(figures.totalCents)),
        ...doc.notes.map((note) => leaf("Causale", latin(note, 200))),
      ),
    ),
    node(
      "DatiBeniServizi",
      ...figures.lines.map((line, i) =>
        node(
          "DettaglioLinee",
          leaf("NumeroLinea", String(i + 1)),
          leaf("Descrizione", latin(line.description, 1000)),
          leaf("Quantita", `${line.quantity}.00`),
          line.period !== undefined && leaf("DataInizioPeriodo", line.period.from),
          line.period !== undefined && leaf("DataFinePeriodo", line.period.to),
          leaf("PrezzoUnitario", unitAmount(line.netCents, line.quantity)),
          leaf("PrezzoTotale", amount(line.netCents)),
          leaf("AliquotaIVA", rate(line.rateBps)),
          line.rateBps === null && leaf("Natura", VAT_AT_SOURCE_NATURE),
        ),
      ),
      ...figures.summary.map((group) =>
        node(
          "DatiRiepilogo",
          leaf("AliquotaIVA", rate(group.rateBps)),
          group.rateBps === null && leaf("Natura", VAT_AT_SOURCE_NATURE),
          group.roundingCents !== 0 && leaf("Arrotondamento", amount(group.roundingCents)),
          leaf("ImponibileImporto", amount(group.taxableCents)),
          leaf("Imposta", amount(group.vatCents)),
          group.rateBps !== null && leaf("EsigibilitaIVA", "I"),
          group.rateBps === null && leaf("RiferimentoNormativo", VAT_AT_SOURCE_LAW),
        ),
      ),
    ),
    // Paid already, by card: "pagamento completo", "carta di pagamento".
    node(
      "DatiPagamento",
      leaf("CondizioniPagamento", "TP02"),
      node("DettaglioPagamento", leaf("ModalitaPagamento", "MP08"), leaf("ImportoPagamento", amount(figures.totalCents))),
    ),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<p:FatturaElettronica xmlns:p="${NAMESPACE}" versione="FPR12">${header}${body}</p:FatturaElettronica>\n`;
}
