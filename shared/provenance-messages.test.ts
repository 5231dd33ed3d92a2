import { describe, expect, it } from "vitest";
import type { AccessGrant } from "#server/library/types.ts";
import { onAnotherDay } from "#tests/support/clock.ts";
import { accessUntilLine, endedLine, nextGrantLine, obtainedLine } from "./provenance-messages.ts";

// The lines only write out the dates they are given (the day in Rome, the article before 8 and
// 11): fixed dates are the point. Each test runs with the system's date elsewhere, so they hold
// on any day, and fail should the lines start reading a clock.
const at = new Date("2026-03-12T09:00:00Z");

describe("obtainedLine", () => {
  it("says how each source gave the product, on Rome's day", () =>
    onAnotherDay(() => {
      expect(obtainedLine({ source: "activation_code", at })).toBe("Attivato con il codice del libro il 12 marzo 2026");
      expect(obtainedLine({ source: "purchase", at, orderCode: "NX260312-7K3M9Q" })).toBe(
        "Acquistato con l'ordine NX260312-7K3M9Q il 12 marzo 2026",
      );
      expect(obtainedLine({ source: "subscription", at, instalment: 3 })).toBe("Incluso nell'abbonamento EDU (rata 3 di 6)");
      expect(obtainedLine({ source: "operator", at })).toBe("Concesso dal servizio clienti il 12 marzo 2026");
    }));

  it("says less where the order or the month is not known (the dashboard's card reads neither)", () =>
    onAnotherDay(() => {
      expect(obtainedLine({ source: "purchase", at })).toBe("Acquistato il 12 marzo 2026");
      expect(obtainedLine({ source: "subscription", at, instalment: null })).toBe("Mese dell'abbonamento EDU");
    }));

  it("takes the day in Rome, not in UTC, and elides the article before 8 and 11", () =>
    onAnotherDay(() => {
      // 23:30 UTC on 7 March is past midnight in Rome.
      expect(obtainedLine({ source: "operator", at: new Date("2026-03-07T23:30:00Z") })).toBe(
        "Concesso dal servizio clienti l'8 marzo 2026",
      );
      expect(obtainedLine({ source: "activation_code", at: new Date("2026-11-11T10:00:00Z") })).toBe(
        "Attivato con il codice del libro l'11 novembre 2026",
      );
    }));
});

describe("the lines of until when", () => {
  it("gives the end of access, or says it has none", () =>
    onAnotherDay(() => {
      expect(accessUntilLine(new Date("2027-09-12T08:00:00Z"))).toBe("Accesso fino al 12 settembre 2027");
      expect(accessUntilLine(new Date("2027-08-08T08:00:00Z"))).toBe("Accesso fino all'8 agosto 2027");
      expect(accessUntilLine(null)).toBe("Accesso senza scadenza");
      expect(endedLine(new Date("2026-02-01T12:00:00Z"))).toBe("Accesso scaduto il 1 febbraio 2026");
    }));

  it("says when a grant still to come runs and how it was obtained", () =>
    onAnotherDay(() => {
      const grant: AccessGrant = {
        source: "activation_code",
        at,
        orderCode: "NX260312-7K3M9Q",
        instalment: null,
        startsAt: new Date("2026-08-11T10:00:00Z"),
        expiresAt: new Date("2027-02-11T10:00:00Z"),
      };
      expect(nextGrantLine(grant)).toBe(
        "Poi, dall'11 agosto 2026 all'11 febbraio 2027: attivato con il codice del libro il 12 marzo 2026",
      );
      expect(nextGrantLine({ ...grant, source: "operator", expiresAt: null })).toBe(
        "Poi, dall'11 agosto 2026, senza scadenza: concesso dal servizio clienti il 12 marzo 2026",
      );
    }));
});
