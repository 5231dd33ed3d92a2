// The controls SDI applies to an e-invoice beyond its XML schema, one named check each, as the
// Agenzia delle Entrate's "Specifiche tecniche" list them with the error code of the rejection
// (scarto) they cause: a file that breaks one comes back from SDI as an NS notification with that
// code. The tests run every invoice the portal makes through the schema (fatturapa-schema.ts) and
// through these, so a file SDI would reject fails here first.
//
// They live in the tests, not in the product: the portal's writer (server/invoices/fatturapa.ts)
// is built so that its files keep them (its figures come from one rule, checked for any lines by
// a property test), and the buyer's data is checked at the checkout; a second XML reading at issue
// time would be a parser in production to catch the writer's own bugs, which these tests catch.
//
// Tolerances are SDI's: ±1 cent for a line's PrezzoTotale (00423) and a rate's Imposta (00421),
// ±1 euro for a rate's ImponibileImporto against its lines (00422). Beside SDI's codes, one control
// is the accountant's (art. 26 DPR 633/72): a credit note (TD04) names the invoice it corrects.
// Not here: the checks against SDI's registers (00300–00306, the Partita IVA or Codice Fiscale
// exists at the Anagrafe tributaria; 00311, the recipient code is active), which only SDI can
// make; the checkout checks those ids' form (shared/italian-ids.ts).
import { XMLParser } from "fast-xml-parser";
import { fatturaPaSchemaErrors } from "./fatturapa-schema.ts";

type Node = Record<string, unknown>;

/** The elements that may repeat, read as lists even when there is one. */
const REPEATED = new Set([
  "FatturaElettronicaBody",
  "DettaglioLinee",
  "DatiRiepilogo",
  "ScontoMaggiorazione",
  "DatiRitenuta",
  "DatiCassaPrevidenziale",
  "DatiFattureCollegate",
  "DatiPagamento",
  "DettaglioPagamento",
  "Causale",
]);

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => REPEATED.has(name),
});

type Invoice = { header: Node; bodies: Node[] };

/** The file's header and bodies (one per invoice of a batch), every value as its text. */
function readInvoice(xml: string): Invoice {
  const root = (parser.parse(xml) as Node).FatturaElettronica as Node | undefined;
  if (!root) throw new Error("Not a FatturaElettronica file");
  return { header: root.FatturaElettronicaHeader as Node, bodies: root.FatturaElettronicaBody as Node[] };
}

/** The node at `path` (element names), or undefined. */
function at(node: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((n, name) => (n && typeof n === "object" ? (n as Node)[name] : undefined), node);
}
const text = (node: unknown, ...path: string[]) => {
  const value = at(node, ...path);
  return typeof value === "string" && value !== "" ? value : undefined;
};
const list = (node: unknown, ...path: string[]) => (at(node, ...path) as Node[] | undefined) ?? [];
/** A decimal element as a number (0 when absent). */
const num = (node: unknown, ...path: string[]) => Number(text(node, ...path) ?? "0");
const cents = (value: number) => Math.round(value * 100);

const lines = (body: Node) => list(body, "DatiBeniServizi", "DettaglioLinee");
const summaries = (body: Node) => list(body, "DatiBeniServizi", "DatiRiepilogo");
const document = (body: Node) => at(body, "DatiGenerali", "DatiGeneraliDocumento") as Node;

export type SdiControl = {
  code: string;
  /** What SDI checks, in the Specifiche tecniche's words (shortened). */
  rule: string;
  /** The file's breaches of the rule: none when it holds. */
  check(invoice: Invoice, context: { receivedOn: string }): string[];
};

/** A control on each body of the file. */
const eachBody =
  (check: (body: Node, context: { receivedOn: string }) => string[]): SdiControl["check"] =>
  (invoice, context) =>
    invoice.bodies.flatMap((body) => check(body, context));

/** A line's PrezzoUnitario after its discounts and surcharges (ScontoMaggiorazione), in order. */
function netUnitPrice(line: Node): number {
  let price = num(line, "PrezzoUnitario");
  for (const change of list(line, "ScontoMaggiorazione")) {
    const amount = text(change, "Importo") ? Math.abs(num(change, "Importo")) : (price * num(change, "Percentuale")) / 100;
    price += text(change, "Tipo") === "SC" ? -amount : amount;
  }
  return price;
}

export const SDI_CONTROLS: SdiControl[] = [
  {
    code: "00400",
    rule: "2.2.1.14 <Natura> non presente a fronte di 2.2.1.12 <AliquotaIVA> pari a zero",
    check: eachBody((body) =>
      lines(body)
        .filter((line) => num(line, "AliquotaIVA") === 0 && !text(line, "Natura"))
        .map((line) => `line ${text(line, "NumeroLinea")} has rate 0 and no Natura`),
    ),
  },
  {
    code: "00401",
    rule: "2.2.1.14 <Natura> presente a fronte di 2.2.1.12 <AliquotaIVA> diversa da zero",
    check: eachBody((body) =>
      lines(body)
        .filter((line) => num(line, "AliquotaIVA") !== 0 && text(line, "Natura"))
        .map((line) => `line ${text(line, "NumeroLinea")} has rate ${text(line, "AliquotaIVA")} and Natura`),
    ),
  },
  {
    code: "00403",
    rule: "2.1.1.3 <Data> successiva alla data di ricezione",
    check: eachBody((body, { receivedOn }) => {
      const date = text(document(body), "Data")!;
      return date > receivedOn ? [`Data ${date} is after ${receivedOn}, when SDI receives the file`] : [];
    }),
  },
  {
    code: "00411",
    rule: "2.1.1.5 <DatiRitenuta> non presente a fronte di almeno un 2.2.1 <DettaglioLinee> con 2.2.1.13 <Ritenuta> SI",
    check: eachBody((body) =>
      lines(body).some((line) => text(line, "Ritenuta") === "SI") && list(document(body), "DatiRitenuta").length === 0
        ? ["a line withholds tax (Ritenuta SI) and DatiRitenuta is missing"]
        : [],
    ),
  },
  {
    code: "00413",
    rule: "2.1.1.7.7 <Natura> non presente a fronte di 2.1.1.7.5 <AliquotaIVA> pari a zero",
    check: eachBody((body) =>
      list(document(body), "DatiCassaPrevidenziale")
        .filter((fund) => num(fund, "AliquotaIVA") === 0 && !text(fund, "Natura"))
        .map(() => "a pension fund contribution has rate 0 and no Natura"),
    ),
  },
  {
    code: "00414",
    rule: "2.1.1.7.7 <Natura> presente a fronte di 2.1.1.7.5 <AliquotaIVA> diversa da zero",
    check: eachBody((body) =>
      list(document(body), "DatiCassaPrevidenziale")
        .filter((fund) => num(fund, "AliquotaIVA") !== 0 && text(fund, "Natura"))
        .map(() => "a pension fund contribution has a rate and a Natura"),
    ),
  },
  {
    code: "00415",
    rule: "2.1.1.5 <DatiRitenuta> non presente a fronte di 2.1.1.7.6 <Ritenuta> uguale a SI",
    check: eachBody((body) =>
      list(document(body), "DatiCassaPrevidenziale").some((fund) => text(fund, "Ritenuta") === "SI") &&
      list(document(body), "DatiRitenuta").length === 0
        ? ["a pension fund contribution withholds tax and DatiRitenuta is missing"]
        : [],
    ),
  },
  {
    code: "00417",
    rule: "1.4.1.1 <IdFiscaleIVA> e 1.4.1.2 <CodiceFiscale> del cessionario/committente non valorizzati (almeno uno)",
    check: ({ header }) => {
      const buyer = at(header, "CessionarioCommittente", "DatiAnagrafici");
      return !at(buyer, "IdFiscaleIVA") && !text(buyer, "CodiceFiscale")
        ? ["the buyer has neither a VAT number nor a tax code"]
        : [];
    },
  },
  {
    code: "00418",
    rule: "2.1.1.3 <Data> antecedente a 2.1.6.3 <Data> (la fattura collegata)",
    check: eachBody((body) => {
      const date = text(document(body), "Data")!;
      return list(body, "DatiGenerali", "DatiFattureCollegate")
        .filter((linked) => (text(linked, "Data") ?? "") > date)
        .map((linked) => `Data ${date} is before the linked invoice's ${text(linked, "Data")}`);
    }),
  },
  {
    code: "00419",
    rule: "2.2.2 <DatiRiepilogo> non presente per almeno un valore di 2.2.1.12 <AliquotaIVA> o 2.1.1.7.5 <AliquotaIVA>",
    check: eachBody((body) => {
      const summarized = new Set(summaries(body).map((s) => num(s, "AliquotaIVA")));
      const rates = [...lines(body), ...list(document(body), "DatiCassaPrevidenziale")].map((n) => num(n, "AliquotaIVA"));
      return [...new Set(rates)].filter((rate) => !summarized.has(rate)).map((rate) => `no summary for rate ${rate.toFixed(2)}`);
    }),
  },
  {
    code: "00420",
    rule: "2.2.2.2 <Natura> N6 (inversione contabile) a fronte di 2.2.2.7 <EsigibilitaIVA> S (scissione pagamenti)",
    check: eachBody((body) =>
      summaries(body)
        .filter((s) => text(s, "Natura")?.startsWith("N6") && text(s, "EsigibilitaIVA") === "S")
        .map(() => "reverse charge (N6) with split payment (S)"),
    ),
  },
  {
    code: "00421",
    rule: "2.2.2.6 <Imposta> non calcolata secondo le regole (ImponibileImporto × AliquotaIVA, ±1 centesimo)",
    check: eachBody((body) =>
      summaries(body).flatMap((s) => {
        const expected = cents((num(s, "ImponibileImporto") * num(s, "AliquotaIVA")) / 100);
        const written = cents(num(s, "Imposta"));
        return Math.abs(written - expected) > 1
          ? [`rate ${text(s, "AliquotaIVA")}: Imposta ${text(s, "Imposta")}, expected ${(expected / 100).toFixed(2)} ±0.01`]
          : [];
      }),
    ),
  },
  {
    code: "00422",
    rule: "2.2.2.5 <ImponibileImporto> non calcolato secondo le regole (Σ PrezzoTotale + Σ contributi + Arrotondamento, ±1 euro)",
    // Per rate: the rate's summaries against its lines (a rate with no summary is 00419's).
    check: eachBody((body) => {
      const sum = (nodes: Node[], value: (node: Node) => number, rate: number) =>
        nodes.filter((node) => num(node, "AliquotaIVA") === rate).reduce((total, node) => total + cents(value(node)), 0);
      const rates = [...new Set(summaries(body).map((s) => num(s, "AliquotaIVA")))];
      return rates.flatMap((rate) => {
        const difference =
          sum(summaries(body), (s) => num(s, "ImponibileImporto") - num(s, "Arrotondamento"), rate) -
          sum(lines(body), (line) => num(line, "PrezzoTotale"), rate) -
          sum(list(document(body), "DatiCassaPrevidenziale"), (fund) => num(fund, "ImportoContributoCassa"), rate);
        return Math.abs(difference) >= 100
          ? [`rate ${rate.toFixed(2)}: ImponibileImporto differs from its lines by ${(difference / 100).toFixed(2)}`]
          : [];
      });
    }),
  },
  {
    code: "00423",
    rule: "2.2.1.11 <PrezzoTotale> non calcolato secondo le regole (PrezzoUnitario ± sconti × Quantita, ±1 centesimo)",
    check: eachBody((body) =>
      lines(body).flatMap((line) => {
        const quantity = text(line, "Quantita") ? num(line, "Quantita") : 1;
        const difference = Math.abs(num(line, "PrezzoTotale") - netUnitPrice(line) * quantity);
        return difference > 0.01 + 1e-9
          ? [`line ${text(line, "NumeroLinea")}: PrezzoTotale ${text(line, "PrezzoTotale")} is off by ${difference.toFixed(8)}`]
          : [];
      }),
    ),
  },
  {
    code: "00424",
    rule: "2.2.1.12, 2.2.2.1 o 2.1.1.7.5 <AliquotaIVA> non indicata in termini percentuali",
    check: eachBody((body) =>
      [...lines(body), ...summaries(body), ...list(document(body), "DatiCassaPrevidenziale")]
        .map((node) => num(node, "AliquotaIVA"))
        .filter((rate) => rate > 0 && rate < 1)
        .map((rate) => `rate ${rate} is a fraction, not a percentage`),
    ),
  },
  {
    code: "00425",
    rule: "2.1.1.4 <Numero> non contenente caratteri numerici",
    check: eachBody((body) => {
      const number = text(document(body), "Numero") ?? "";
      return /\d/.test(number) ? [] : [`Numero "${number}" has no digit`];
    }),
  },
  {
    code: "00426",
    rule: "1.1.6 <PECDestinatario> valorizzato a fronte di 1.1.4 <CodiceDestinatario> diverso da 0000000",
    check: ({ header }) => {
      const transmission = at(header, "DatiTrasmissione");
      return text(transmission, "PECDestinatario") && text(transmission, "CodiceDestinatario") !== "0000000"
        ? ["a PEC is given with a recipient code other than 0000000"]
        : [];
    },
  },
  {
    code: "00427",
    rule: "1.1.4 <CodiceDestinatario> di 7 caratteri con FPA12, o di 6 con FPR12",
    check: ({ header }) => {
      const format = text(header, "DatiTrasmissione", "FormatoTrasmissione");
      const length = (text(header, "DatiTrasmissione", "CodiceDestinatario") ?? "").length;
      const wanted = format === "FPA12" ? 6 : 7;
      return length !== wanted ? [`a ${format} file's CodiceDestinatario has ${length} characters, not ${wanted}`] : [];
    },
  },
  {
    code: "00428",
    rule: "1.1.3 <FormatoTrasmissione> diverso da FPA12 e FPR12 (o dalla versione del file)",
    check: ({ header }) => {
      const format = text(header, "DatiTrasmissione", "FormatoTrasmissione");
      return format === "FPA12" || format === "FPR12" ? [] : [`FormatoTrasmissione ${format}`];
    },
  },
  {
    code: "00429",
    rule: "2.2.2.2 <Natura> non presente a fronte di 2.2.2.1 <AliquotaIVA> pari a zero",
    check: eachBody((body) =>
      summaries(body)
        .filter((s) => num(s, "AliquotaIVA") === 0 && !text(s, "Natura"))
        .map(() => "a summary has rate 0 and no Natura"),
    ),
  },
  {
    code: "00430",
    rule: "2.2.2.2 <Natura> presente a fronte di 2.2.2.1 <AliquotaIVA> diversa da zero",
    check: eachBody((body) =>
      summaries(body)
        .filter((s) => num(s, "AliquotaIVA") !== 0 && text(s, "Natura"))
        .map((s) => `the summary of rate ${text(s, "AliquotaIVA")} has a Natura`),
    ),
  },
  {
    code: "TD04",
    rule: "una nota di credito (TD04) indica la fattura che rettifica: 2.1.6 <DatiFattureCollegate> con IdDocumento e Data",
    check: eachBody((body) => {
      if (text(document(body), "TipoDocumento") !== "TD04") return [];
      const named = list(body, "DatiGenerali", "DatiFattureCollegate").some(
        (linked) => text(linked, "IdDocumento") && text(linked, "Data"),
      );
      return named ? [] : ["a credit note that names no invoice (number and date) it corrects"];
    }),
  },
];

/** Every control the file breaks, as "code: what" lines; none when SDI would accept it. */
export function sdiControlErrors(xml: string, context: { receivedOn: string }): string[] {
  const invoice = readInvoice(xml);
  return SDI_CONTROLS.flatMap((control) => control.check(invoice, context).map((breach) => `${control.code}: ${breach}`));
}

/**
 * What SDI would reject the file for, received on `receivedOn` (YYYY-MM-DD): the schema's
 * complaints, then the controls beyond it. An empty list: accepted.
 */
export async function sdiRefusals(xml: string, receivedOn: string): Promise<string[]> {
  const schema = await fatturaPaSchemaErrors(xml);
  return schema.length > 0 ? schema : sdiControlErrors(xml, { receivedOn });
}
