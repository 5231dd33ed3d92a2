// The FatturaPA XML of one e-invoice (format FPR12: an invoice to a private party, business or
// consumer; schema 1.2.x of the Agenzia delle Entrate). Pure: the document's data in, the file's
// text out. Amounts come in as integer cents that include their VAT (the portal's prices do); the
// VAT is taken out here by the portal's one rule (shared/order-totals.ts), per line for the
// lines and per rate for the summary, any cent between the two written as the summary's
// Arrotondamento, so that the file's figures agree exactly and add up to what was paid (the rate's
// Imposta is then within SDI's cent of its ImponibileImporto × rate, not always equal to it).
// The document is written in its sections (header, general data, lines and summaries, payment):
// a credit note (TD04) is the same writer with its TipoDocumento, the invoice it corrects in
// DatiFattureCollegate and no payment section (its amounts are positive: the type says they
// are taken back).
import type { InvoiceSeller } from "#server/config.ts";
import { vatByRate, vatIncluded } from "#shared/order-totals.ts";
import { escapeMarkup } from "#server/lib/escape.ts";
import { FATTURAPA_LIMITS, plainTypography } from "#shared/fatturapa-text.ts";

const NAMESPACE = "http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2";
/** Prices that include VAT paid at source by the publisher (art. 74 DPR 633/72): "non soggette, altri casi". */
const VAT_AT_SOURCE_NATURE = "N2.2";
const VAT_AT_SOURCE_LAW = "IVA assolta dall'editore, art. 74 c. 1 lett. c) DPR 633/72";
/** The recipient's code when SDI delivers by PEC, or to a consumer's tax drawer. */
const NO_RECIPIENT_CODE = "0000000";
/** Stamp duty (imposta di bollo) is due on an invoice whose amounts outside VAT exceed 77,47 € (DPR 642/72). */
const STAMP_DUTY_THRESHOLD_CENTS = 7747;
/** The virtual stamp's amount, paid by the publisher each quarter (DM 17/06/2014). */
export const STAMP_DUTY_CENTS = 200;

type InvoiceAddress = { street: string; postcode: string; city: string; province: string };

/**
 * Who the invoice is made out to (CessionarioCommittente), and where SDI delivers it: a company by
 * its Partita IVA and name; a body without one (an association, with a Codice Fiscale of 11
 * digits) by its Codice Fiscale and name (Denominazione); a person by Codice Fiscale and name.
 */
export type InvoiceBuyer = (
  | { kind: "company"; vat: string; name: string }
  | { kind: "body"; fiscalCode: string; name: string }
  | { kind: "person"; fiscalCode: string; firstname: string; lastname: string }
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

/** The invoice a credit note corrects (DatiFattureCollegate): its Numero and Data. */
export type CorrectedInvoice = { number: string; date: string };

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
} & (
  | { /** TipoDocumento: an invoice. */ type: "TD01" }
  | { /** A credit note, and the invoice it corrects. */ type: "TD04"; corrects: CorrectedInvoice }
);

/**
 * Text as FatturaPA's String…LatinType takes it: Latin-1 only (typography made plain, other letters
 * without their accents, anything else "?": the checkout refuses such text, so only data older
 * than that check needs it), one line, at most `max` characters.
 */
export function latin(text: string, max: number): string {
  let out = "";
  for (const ch of plainTypography(text)) {
    if (ch.codePointAt(0)! <= 0xff) out += ch;
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
    leaf("Indirizzo", latin(a.street, FATTURAPA_LIMITS.street)),
    leaf("CAP", a.postcode),
    leaf("Comune", latin(a.city, FATTURAPA_LIMITS.city)),
    leaf("Provincia", a.province),
    leaf("Nazione", "IT"),
  );

const vatId = (vat: string) => node("IdFiscaleIVA", leaf("IdPaese", "IT"), leaf("IdCodice", vat));

/** IscrizioneREA: what a company must state of its registration (art. 2250 c.c.), when configured. */
function companyRegister(rea: NonNullable<InvoiceSeller["rea"]>) {
  return node(
    "IscrizioneREA",
    leaf("Ufficio", rea.office),
    leaf("NumeroREA", rea.number),
    rea.shareCapitalCents !== null && leaf("CapitaleSociale", amount(rea.shareCapitalCents)),
    rea.soleShareholder !== null && leaf("SocioUnico", rea.soleShareholder),
    leaf("StatoLiquidazione", rea.inLiquidation ? "LS" : "LN"),
  );
}

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
    s.rea !== null && companyRegister(s.rea),
  );
}

function buyer(b: InvoiceBuyer) {
  const named = (name: string) => node("Anagrafica", leaf("Denominazione", latin(name, FATTURAPA_LIMITS.name)));
  const identity =
    b.kind === "company"
      ? [vatId(b.vat), named(b.name)]
      : b.kind === "body"
        ? [leaf("CodiceFiscale", b.fiscalCode), named(b.name)]
        : [
            leaf("CodiceFiscale", b.fiscalCode),
            node(
              "Anagrafica",
              leaf("Nome", latin(b.firstname, FATTURAPA_LIMITS.firstname)),
              leaf("Cognome", latin(b.lastname, FATTURAPA_LIMITS.lastname)),
            ),
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

/**
 * Whether the invoice carries the virtual stamp duty: the seller's setting says so (the
 * accountant's decision) and its amounts outside VAT (the lines with a Natura) exceed 77,47 €.
 * The publisher bears the 2 €: the document's total stays what the customer paid.
 */
export function stampDutyDue(seller: InvoiceSeller, lines: readonly InvoiceLine[]): boolean {
  const outsideVat = invoiceFigures(lines)
    .summary.filter((group) => group.rateBps === null)
    .reduce((sum, group) => sum + group.taxableCents, 0);
  return seller.stampDuty && outsideVat > STAMP_DUTY_THRESHOLD_CENTS;
}

type Figures = ReturnType<typeof invoiceFigures>;

function header(doc: InvoiceDocument) {
  const recipient = recipientOf(doc.buyer);
  return node(
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
}

/** DatiGenerali: the document's type, date, number, stamp duty, total and notes. */
function generalData(doc: InvoiceDocument, figures: Figures) {
  return node(
    "DatiGenerali",
    node(
      "DatiGeneraliDocumento",
      leaf("TipoDocumento", doc.type),
      leaf("Divisa", "EUR"),
      leaf("Data", doc.date),
      leaf("Numero", doc.number),
      stampDutyDue(doc.seller, doc.lines) &&
        node("DatiBollo", leaf("BolloVirtuale", "SI"), leaf("ImportoBollo", amount(STAMP_DUTY_CENTS))),
      leaf("ImportoTotaleDocumento", amount(figures.totalCents)),
      ...doc.notes.map((note) => leaf("Causale", latin(note, 200))),
    ),
    doc.type === "TD04" &&
      node("DatiFattureCollegate", leaf("IdDocumento", doc.corrects.number), leaf("Data", doc.corrects.date)),
  );
}

/** DatiBeniServizi: each line's taxable amount, then per rate the document's VAT. */
function goodsAndServices(figures: Figures) {
  return node(
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
  );
}

/** Paid already, by card: "pagamento completo", "carta di pagamento". */
const paidByCard = (figures: Figures) =>
  node(
    "DatiPagamento",
    leaf("CondizioniPagamento", "TP02"),
    node("DettaglioPagamento", leaf("ModalitaPagamento", "MP08"), leaf("ImportoPagamento", amount(figures.totalCents))),
  );

export function fatturaPaXml(doc: InvoiceDocument): string {
  const figures = invoiceFigures(doc.lines);
  const body = node(
    "FatturaElettronicaBody",
    generalData(doc, figures),
    goodsAndServices(figures),
    // A credit note pays nothing: the refund went back to the card.
    doc.type === "TD01" && paidByCard(figures),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<p:FatturaElettronica xmlns:p="${NAMESPACE}" versione="FPR12">${header(doc)}${body}</p:FatturaElettronica>\n`;
}
