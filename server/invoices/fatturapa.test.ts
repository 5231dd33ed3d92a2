import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fatturaPaSchemaErrors } from "#tests/support/fatturapa-schema.ts";
import { ADDRESS, ASSOCIATION, COMPANY, PERSON, SELLER } from "#tests/support/invoice-parties.ts";
import { sdiRefusals } from "#tests/support/sdi-controls.ts";
import {
  amount,
  fatturaPaXml,
  invoiceFigures,
  latin,
  stampDutyDue,
  unitAmount,
  type InvoiceDocument,
  type InvoiceLine,
} from "./fatturapa.ts";

type Invoice = Extract<InvoiceDocument, { type: "TD01" }>;
const doc = (overrides: Partial<Invoice> = {}): InvoiceDocument => ({
  type: "TD01",
  seller: SELLER,
  buyer: COMPANY,
  progressive: "0000A",
  number: "WEB/1",
  date: "2026-11-23",
  lines: [{ description: "Guida all'esame di avvocato", quantity: 1, grossCents: 3200, rateBps: 400 }],
  notes: ["Ordine NX261123-7K3M9Q, pagamento PX261123-ABC123 con carta"],
  ...overrides,
});

/** The text of every element of that name, in document order. */
const values = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);
/** What SDI would refuse the file for (schema, then its controls), received on the document's day. */
const refusals = (xml: string) => sdiRefusals(xml, "2026-11-23");

describe("FatturaPA XML", () => {
  it("makes a company's invoice that the official schema accepts, delivered by its SDI code", async () => {
    const xml = fatturaPaXml(doc());
    expect(await refusals(xml)).toEqual([]);
    expect(xml).toContain('versione="FPR12"');
    expect(values(xml, "FormatoTrasmissione")).toEqual(["FPR12"]);
    expect(values(xml, "CodiceDestinatario")).toEqual(["M5UXCR1"]);
    expect(xml).not.toContain("PECDestinatario");
    expect(values(xml, "IdCodice")).toEqual(["06363391001", "06363391001", "00743110157"]);
    expect(values(xml, "Denominazione")).toEqual(["Novalex Editore S.r.l.", "Studio Legale Conti"]);
    // 32,00 € with 4 % VAT inside: 30,77 + 1,23.
    expect(values(xml, "PrezzoTotale")).toEqual(["30.77"]);
    expect(values(xml, "ImponibileImporto")).toEqual(["30.77"]);
    expect(values(xml, "Imposta")).toEqual(["1.23"]);
    expect(values(xml, "AliquotaIVA")).toEqual(["4.00", "4.00"]);
    expect(values(xml, "ImportoTotaleDocumento")).toEqual(["32.00"]);
    expect(values(xml, "ImportoPagamento")).toEqual(["32.00"]);
    expect(values(xml, "Numero")).toEqual(["WEB/1"]);
    expect(values(xml, "Data")).toEqual(["2026-11-23"]);
  });

  it("makes a private customer's invoice by Codice Fiscale, to their PEC or else to their tax drawer", async () => {
    const byPec = fatturaPaXml(doc({ buyer: { ...PERSON, pec: "maria.rossi@pec.example.it" } }));
    expect(await refusals(byPec)).toEqual([]);
    expect(values(byPec, "CodiceDestinatario")).toEqual(["0000000"]);
    expect(values(byPec, "PECDestinatario")).toEqual(["maria.rossi@pec.example.it"]);
    expect(values(byPec, "CodiceFiscale")).toEqual(["RSSMRA85T10A562S"]);
    expect([values(byPec, "Nome"), values(byPec, "Cognome")]).toEqual([["Maria"], ["Rossi"]]);

    const drawer = fatturaPaXml(doc({ buyer: PERSON }));
    expect(await refusals(drawer)).toEqual([]);
    expect(values(drawer, "CodiceDestinatario")).toEqual(["0000000"]);
    expect(drawer).not.toContain("PECDestinatario");
  });

  it("sends a company's invoice to its PEC when its code is 0000000", async () => {
    const xml = fatturaPaXml(doc({ buyer: { ...COMPANY, sdiCode: "0000000", pec: "studio@pec.example.it" } }));
    expect(await refusals(xml)).toEqual([]);
    expect(values(xml, "PECDestinatario")).toEqual(["studio@pec.example.it"]);
  });

  it("sums VAT per rate, writes the cent the lines' rounding leaves as Arrotondamento, and marks VAT paid at source N2.2", async () => {
    const xml = fatturaPaXml(
      doc({
        lines: [
          { description: "eBook A", quantity: 1, grossCents: 1001, rateBps: 400 },
          { description: "eBook B", quantity: 1, grossCents: 1001, rateBps: 400 },
          { description: "Corso", quantity: 1, grossCents: 4900, rateBps: 2200 },
          { description: "Libro (carta)", quantity: 3, grossCents: 4500, rateBps: null },
        ],
      }),
    );
    expect(await refusals(xml)).toEqual([]);
    // Each 10,01 € line holds 0,39 € of VAT (9,62 taxable); the two together hold 0,77 € (19,25).
    expect(values(xml, "PrezzoTotale")).toEqual(["9.62", "9.62", "40.16", "45.00"]);
    expect(values(xml, "PrezzoUnitario")).toEqual(["9.62", "9.62", "40.16", "15.00"]);
    expect(values(xml, "Arrotondamento")).toEqual(["0.01"]);
    expect(values(xml, "ImponibileImporto")).toEqual(["19.25", "40.16", "45.00"]);
    expect(values(xml, "Imposta")).toEqual(["0.77", "8.84", "0.00"]);
    expect(values(xml, "Natura")).toEqual(["N2.2", "N2.2"]);
    expect(values(xml, "RiferimentoNormativo")[0]).toMatch(/art\. 74/);
    expect(values(xml, "ImportoTotaleDocumento")).toEqual(["114.02"]);
  });

  it("writes a subscription month's period, and makes typed text fit the schema's Latin-1 strings", async () => {
    const xml = fatturaPaXml(
      doc({
        buyer: { ...COMPANY, name: "Dell’Acqua & Figli <Łódź> “Studio” 🙂" },
        lines: [
          {
            description: "Abbonamento EDU: mese 2, dal 23/12/2026 al 23/01/2027",
            quantity: 1,
            grossCents: 450,
            rateBps: 2200,
            period: { from: "2026-12-23", to: "2027-01-23" },
          },
        ],
      }),
    );
    expect(await refusals(xml)).toEqual([]);
    // Quotes made plain, ź without its accent, Ł (no Latin-1 letter inside) and the emoji as "?".
    expect(values(xml, "Denominazione")[1]).toBe("Dell&#39;Acqua &amp; Figli &lt;?ódz&gt; &quot;Studio&quot; ?");
    expect([values(xml, "DataInizioPeriodo"), values(xml, "DataFinePeriodo")]).toEqual([["2026-12-23"], ["2027-01-23"]]);
    expect([values(xml, "ImponibileImporto"), values(xml, "Imposta")]).toEqual([["3.69"], ["0.81"]]);
  });

  it("names an association (a Codice Fiscale of 11 digits) by its Denominazione, not as a person", async () => {
    const xml = fatturaPaXml(doc({ buyer: ASSOCIATION }));
    expect(await refusals(xml)).toEqual([]);
    expect(values(xml, "CodiceFiscale")).toEqual(["97735020584"]);
    expect(values(xml, "Denominazione")).toEqual(["Novalex Editore S.r.l.", "Associazione Giuristi Romani"]);
    expect([values(xml, "Nome"), values(xml, "Cognome")]).toEqual([[], []]);
  });

  it("states the seller's register entry, share capital, sole shareholder and liquidation when configured", async () => {
    const rea = {
      office: "RM",
      number: "1234567",
      shareCapitalCents: 1_000_000,
      soleShareholder: "SU" as const,
      inLiquidation: true,
    };
    const xml = fatturaPaXml(doc({ seller: { ...SELLER, rea } }));
    expect(await refusals(xml)).toEqual([]);
    expect(xml).toContain(
      "<IscrizioneREA><Ufficio>RM</Ufficio><NumeroREA>1234567</NumeroREA><CapitaleSociale>10000.00</CapitaleSociale>" +
        "<SocioUnico>SU</SocioUnico><StatoLiquidazione>LS</StatoLiquidazione></IscrizioneREA>",
    );
    const plain = fatturaPaXml(doc());
    expect(values(plain, "StatoLiquidazione")).toEqual(["LN"]);
    expect(plain).not.toContain("CapitaleSociale");
    expect(plain).not.toContain("SocioUnico");
    expect(fatturaPaXml(doc({ seller: { ...SELLER, rea: null } }))).not.toContain("IscrizioneREA");
  });

  describe("stamp duty", () => {
    const paper = (grossCents: number): InvoiceLine => ({
      description: "Codice civile (carta)",
      quantity: 1,
      grossCents,
      rateBps: null,
    });
    const ebook: InvoiceLine = { description: "eBook", quantity: 1, grossCents: 50_000, rateBps: 400 };

    it("carries the virtual stamp when the amounts outside VAT exceed 77,47 €, the total still what was paid", async () => {
      const xml = fatturaPaXml(doc({ lines: [paper(7748), ebook] }));
      expect(await refusals(xml)).toEqual([]);
      expect(xml).toContain(
        "<Numero>WEB/1</Numero><DatiBollo><BolloVirtuale>SI</BolloVirtuale><ImportoBollo>2.00</ImportoBollo></DatiBollo>",
      );
      expect(values(xml, "ImportoTotaleDocumento")).toEqual(["577.48"]);
      expect(values(xml, "ImportoPagamento")).toEqual(["577.48"]);
      expect(stampDutyDue(SELLER, [paper(7748)])).toBe(true);
    });

    it("carries none at 77,47 € or less outside VAT, however much VAT the rest bears, nor when the setting is off", async () => {
      expect(fatturaPaXml(doc({ lines: [paper(7747), ebook] }))).not.toContain("DatiBollo");
      expect(stampDutyDue(SELLER, [paper(7747), ebook])).toBe(false);
      expect(stampDutyDue(SELLER, [ebook, ebook])).toBe(false);
      expect(stampDutyDue({ ...SELLER, stampDuty: false }, [paper(20_000)])).toBe(false);
      expect(fatturaPaXml(doc({ seller: { ...SELLER, stampDuty: false }, lines: [paper(20_000)] }))).not.toContain("DatiBollo");
      // Two paper lines count together.
      expect(stampDutyDue(SELLER, [paper(4000), paper(3748)])).toBe(true);
    });
  });

  it("makes a credit note (TD04): the invoice it corrects named after the document's data, amounts positive, no payment", async () => {
    const lines = [{ description: "Guida all'esame di avvocato", quantity: 1, grossCents: 1250, rateBps: 400 }];
    const xml = fatturaPaXml({
      ...doc({ lines }),
      type: "TD04",
      number: "NC/1",
      corrects: { number: "WEB/1", date: "2026-11-20" },
    });
    expect(await refusals(xml)).toEqual([]);
    expect(values(xml, "TipoDocumento")).toEqual(["TD04"]);
    expect(xml).toMatch(
      /<\/DatiGeneraliDocumento><DatiFattureCollegate><IdDocumento>WEB\/1<\/IdDocumento><Data>2026-11-20<\/Data><\/DatiFattureCollegate><\/DatiGenerali>/,
    );
    expect([values(xml, "ImportoTotaleDocumento"), values(xml, "ImponibileImporto"), values(xml, "Imposta")]).toEqual([
      ["12.50"],
      ["12.02"],
      ["0.48"],
    ]);
    expect(xml).not.toContain("<DatiPagamento>");
    // The invoice does not name one.
    expect(fatturaPaXml(doc())).not.toContain("DatiFattureCollegate");
  });

  it("is refused by the schema when it is wrong (the check can fail)", async () => {
    const xml = fatturaPaXml(doc({ buyer: { ...COMPANY, address: { ...ADDRESS, province: "Milano" } } }));
    expect((await fatturaPaSchemaErrors(xml)).join("\n")).toMatch(/Provincia/);
    expect(await fatturaPaSchemaErrors(fatturaPaXml(doc()).replace("<Divisa>EUR</Divisa>", ""))).not.toEqual([]);
  });
});

describe("amounts", () => {
  it("writes cents as euro with 2 decimals, and a unit price with up to 8", () => {
    expect([amount(0), amount(5), amount(3077), amount(-1)]).toEqual(["0.00", "0.05", "30.77", "-0.01"]);
    expect([unitAmount(1001, 3), unitAmount(4500, 3), unitAmount(3077, 1), unitAmount(1, 7)]).toEqual([
      "3.33666667",
      "15.00",
      "30.77",
      "0.00142857",
    ]);
    expect(latin("  a\tb\nc  ", 3)).toBe("a b");
  });

  it("agree within the invoice for any lines: lines + rounding = taxable per rate, taxable + tax = what was paid", () => {
    const line = fc.record({
      grossCents: fc.integer({ min: 1, max: 500_000 }),
      quantity: fc.integer({ min: 1, max: 9 }),
      rateBps: fc.constantFrom(400, 1000, 2200, null),
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (raw) => {
        const figures = invoiceFigures(raw.map((l) => ({ ...l, description: "x" })));
        const paid = raw.reduce((sum, l) => sum + l.grossCents, 0);
        expect(figures.totalCents).toBe(paid);
        expect(figures.summary.reduce((sum, g) => sum + g.taxableCents + g.vatCents, 0)).toBe(paid);
        for (const group of figures.summary) {
          const lines = figures.lines.filter((l) => l.rateBps === group.rateBps);
          expect(lines.reduce((sum, l) => sum + l.netCents, 0) + group.roundingCents).toBe(group.taxableCents);
          // SDI's check: the tax is the taxable amount × the rate, to the cent.
          expect(Math.abs(group.vatCents - (group.taxableCents * (group.rateBps ?? 0)) / 10_000)).toBeLessThanOrEqual(1);
          for (const l of lines)
            expect(Math.abs(Number(unitAmount(l.netCents, l.quantity)) * l.quantity * 100 - l.netCents)).toBeLessThan(1);
        }
      }),
    );
  });
});
