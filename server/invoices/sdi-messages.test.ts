// SDI's notifications read from their files: RC, MC and NS in the official format and in the
// Agenzia's names for private parties; anything else refused with its reason, without reading a DTD
// or an entity, the file's size bounded; elements the portal does not need ignored, those it needs
// required as SDI's message schema (MessaggiTypes 1.1) requires them.
import { describe, expect, it } from "vitest";
import { onAnotherDay } from "#tests/support/clock.ts";
import {
  BUYER_ERRORS,
  deliveryReceipt,
  nonDeliveryNotice,
  rejectionNotice,
  type NotificationFile,
} from "#tests/support/sdi-notifications.ts";
import { MAX_NOTIFICATION_BYTES, readNotification, type ReadNotification } from "./sdi-messages.ts";

const FILE = "IT06363391001_0000A.xml";
const RECEIVED = new Date("2026-11-23T10:05:00Z");
const common = { invoiceFileName: FILE, sdiId: "4216513290", messageId: "7520631", receivedAt: RECEIVED };
const rc = deliveryReceipt({ ...common, deliveredAt: new Date("2026-11-23T10:09:30Z") });
const mc = nonDeliveryNotice({ ...common, description: "Casella PEC del destinatario piena" });
const ns = rejectionNotice({ ...common, errors: BUYER_ERRORS });

const read = (file: { fileName: string; xml: string }) => readNotification(file.fileName, Buffer.from(file.xml));
const refusal = (result: ReadNotification) => (result.ok ? "read" : `${result.kind}: ${result.reason}`);
/** The file with `from` replaced by `to` in its XML. */
const edited = (file: NotificationFile, from: string | RegExp, to: string) => ({ ...file, xml: file.xml.replace(from, to) });

describe("the official format", () => {
  it("names the tests' RC, MC and NS as SDI does", () => {
    expect([rc.fileName, mc.fileName, ns.fileName]).toEqual([
      "IT06363391001_0000A_RC_001.xml",
      "IT06363391001_0000A_MC_001.xml",
      "IT06363391001_0000A_NS_001.xml",
    ]);
  });

  it("reads an RC: the file delivered, when", () => {
    onAnotherDay(() => {
      const result = read(rc);
      expect(result).toMatchObject({
        ok: true,
        notification: {
          type: "RC",
          fileName: rc.fileName,
          sdiId: "4216513290",
          messageId: "7520631",
          invoiceFileName: FILE,
          receivedAt: RECEIVED,
          outcomeAt: new Date("2026-11-23T10:09:30Z"),
          errors: [],
          xml: rc.xml,
        },
      });
    });
  });

  it("reads an MC with its reason, and an NS with each of its errors in order", () => {
    onAnotherDay(() => {
      expect(read(mc)).toMatchObject({
        ok: true,
        notification: { type: "MC", outcomeAt: RECEIVED, description: "Casella PEC del destinatario piena", errors: [] },
      });
      expect(read(ns)).toMatchObject({ ok: true, notification: { type: "NS", outcomeAt: RECEIVED, errors: BUYER_ERRORS } });
    });
  });

  it("reads the Agenzia's names for private parties (RicevutaImpossibilitaRecapito, RicevutaScarto) the same", () => {
    onAnotherDay(() => {
      const privati = { ...common, privati: true };
      const withHint = [{ ...BUYER_ERRORS[0]!, hint: "Verificare il codice destinatario" }];
      expect(read(nonDeliveryNotice(privati))).toMatchObject({
        ok: true,
        // Made available in the tax drawer that day (DataMessaADisposizione: a date, Italy's).
        notification: { type: "MC", invoiceFileName: FILE, outcomeAt: new Date("2026-11-22T23:00:00Z") },
      });
      expect(read(rejectionNotice({ ...privati, errors: withHint }))).toMatchObject({
        ok: true,
        notification: { type: "NS", errors: withHint },
      });
    });
  });

  it("takes a time without its zone as Italy's, and the name of a signed file without its .p7m", () => {
    onAnotherDay(() => {
      const local = edited(rc, "<DataOraRicezione>2026-11-23T10:05:00Z", "<DataOraRicezione>2026-07-01T12:00:00");
      const signed = edited(local, `<NomeFile>${FILE}`, `<NomeFile>${FILE}.p7m`);
      expect(read(signed)).toMatchObject({
        ok: true,
        notification: { receivedAt: new Date("2026-07-01T10:00:00Z"), invoiceFileName: FILE },
      });
    });
  });

  it("ignores what it does not need: other elements, comments, processing instructions, the signature's absence", () => {
    const extra = edited(
      rc,
      "<MessageId>",
      "<RiferimentoArchivio><IdentificativoSdI>1</IdentificativoSdI><NomeFile>IT06363391001_0000A.zip</NomeFile></RiferimentoArchivio>\n  <!-- a comment --><Novita>ignorata</Novita><MessageId>",
    );
    const styled = edited(extra, "?>\n", '?>\n<?xml-stylesheet type="text/xsl" href="RC_v1.0.xsl"?>\n');
    const unsigned = edited(styled, /<ds:Signature[\s\S]*<\/ds:Signature>/, "");
    expect(read(unsigned)).toMatchObject({ ok: true, notification: { type: "RC", messageId: "7520631" } });
  });
});

describe("what it refuses", () => {
  // The elements the schema requires and the portal reads: without any one, neither takes the file.
  const required: [string, NotificationFile, RegExp][] = [
    ["IdentificativoSdI", rc, /<IdentificativoSdI>[^<]*<\/IdentificativoSdI>/],
    ["NomeFile", rc, /<NomeFile>[^<]*<\/NomeFile>/],
    ["DataOraRicezione", mc, /<DataOraRicezione>[^<]*<\/DataOraRicezione>/],
    ["MessageId", mc, /<MessageId>[^<]*<\/MessageId>/],
    ["DataOraConsegna", rc, /<DataOraConsegna>[^<]*<\/DataOraConsegna>/],
    ["ListaErrori", ns, /<ListaErrori>[\s\S]*<\/ListaErrori>/],
    ["Codice", ns, /<Codice>[^<]*<\/Codice>/],
    ["Descrizione", ns, /<Descrizione>1\.1\.4[^<]*<\/Descrizione>/],
  ];
  it.each(required)("a notification without %s", (name, file, element) => {
    const broken = edited(file, element, "");
    expect(broken.xml).not.toBe(file.xml);
    expect(refusal(read(broken))).toMatch(new RegExp(`^unreadable: .*${name}`));
  });

  it("values that are not what the schema says they are", () => {
    const wrong = [
      edited(rc, "<IdentificativoSdI>4216513290", "<IdentificativoSdI>42A"),
      edited(ns, "<Codice>00311", "<Codice>0031"),
      edited(rc, "<DataOraConsegna>2026-11-23", "<DataOraConsegna>2026-11-31"),
      edited(mc, "<MessageId>7520631", "<MessageId>123456789012345"),
    ];
    for (const file of wrong) {
      expect(refusal(read(file))).toMatch(/^unreadable: (IdentificativoSdI|Codice|DataOraConsegna|MessageId) is not/);
    }
  });

  it("XML that is not well-formed, or no SDI notification", () => {
    expect(refusal(read({ ...rc, xml: rc.xml.slice(0, 300) }))).toMatch(/^unreadable: it is not well-formed XML/);
    expect(refusal(readNotification(rc.fileName, Buffer.from([0xff, 0xfe, 0x3c, 0x00])))).toMatch(/not UTF-8/);
    expect(refusal(read(edited(rc, /types:RicevutaConsegna/g, "types:FatturaElettronica")))).toMatch(/is not an RC, MC or NS/);
    expect(refusal(read(edited(rc, "http://www.fatturapa.gov.it/sdi/messaggi/v1.0", "urn:altro")))).toMatch(/namespace/);
    // Named RC, but an NS inside; named after a file other than the one it is about.
    expect(refusal(read({ ...ns, fileName: rc.fileName }))).toMatch(/its name says RC but it is NotificaScarto/);
    expect(refusal(read({ ...rc, fileName: "IT06363391001_0000B_RC_001.xml" }))).toMatch(/not that of its file/);
    for (const name of ["notifica.xml", "IT06363391001_0000A_RC_1.xml", "../IT06363391001_0000A_RC_001.xml"]) {
      expect(refusal(read({ ...rc, fileName: name }))).toMatch(/its name is not an SDI notification's/);
    }
  });

  it("a DTD, and with it any entity (an external file, the billion laughs), before parsing", () => {
    const external = rc.xml.replace(
      "?>\n",
      '?>\n<!DOCTYPE types:RicevutaConsegna [<!ENTITY segreto SYSTEM "file:///etc/passwd">]>\n',
    );
    const laughs = rc.xml.replace("?>\n", '?>\n<!DOCTYPE x [<!ENTITY a "ahah"><!ENTITY b "&a;&a;&a;&a;">]>\n');
    for (const xml of [external.replace("<Note>", "<Note>&segreto;"), laughs]) {
      expect(refusal(read({ ...rc, xml }))).toBe("unreadable: it declares a DTD or entities");
    }
  });

  it("a file larger than any notification, unread", () => {
    expect(refusal(readNotification(rc.fileName, null))).toMatch(/^unreadable: it is larger than/);
    const padded = edited(rc, "<MessageId>", `<Note>${"x".repeat(MAX_NOTIFICATION_BYTES)}</Note><MessageId>`);
    expect(refusal(read(padded))).toMatch(/^unreadable: it is larger than/);
  });

  it("an FPA12 notification (NE, DT, AT) or a recipient's (MT): not about the portal's files", () => {
    for (const type of ["NE", "DT", "AT", "MT"]) {
      expect(refusal(read({ ...rc, fileName: `IT06363391001_0000A_${type}_001.xml` }))).toMatch(/^not_ours: /);
    }
    expect(refusal(read({ ...rc, fileName: "IT06363391001_0000A_DT_001.xml" }))).toMatch(/FPA12 only/);
  });
});
