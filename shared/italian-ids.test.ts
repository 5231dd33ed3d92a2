import { describe, expect, it } from "vitest";
import {
  isCap,
  isCodiceFiscale,
  isCodiceSdi,
  isPartitaIva,
  isProvince,
  normalizeId,
  partitaIvaProblem,
  PROVINCES,
} from "./italian-ids";

describe("normalizeId", () => {
  it("drops spaces and writes capitals", () => {
    expect(normalizeId(" rss mra 85t10\ta562s ")).toBe("RSSMRA85T10A562S");
  });
});

describe("isCodiceFiscale", () => {
  it.each(["RSSMRA85T10A562S", "RSSMRA80A01H501U", "MRTMTT91D08F205J", "BNZVCN32S10E573Z"])(
    "accepts a person's code %s",
    (code) => expect(isCodiceFiscale(code)).toBe(true),
  );

  it("accepts omocodia (digits replaced by letters) with its own check letter", () => {
    // RSSMRA85T10A562S with its last digit 2 written as N (2 → N) gets a new check letter.
    const withoutCheck = "RSSMRA85T10A56N";
    const valid = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"].filter((letter) => isCodiceFiscale(withoutCheck + letter));
    expect(valid).toHaveLength(1);
  });

  it.each([
    ["a wrong check letter", "RSSMRA85T10A562T"],
    ["a month letter that does not exist", "RSSMRA85F10A562S"],
    ["lower case (not normalized)", "rssmra85t10a562s"],
    ["15 characters", "RSSMRA85T10A562"],
    ["a letter where the year is", "RSSMRAA5T10A562S"],
  ])("refuses %s", (_, code) => expect(isCodiceFiscale(code)).toBe(false));

  it("accepts a company's 11-digit code with its check digit, and refuses a wrong one", () => {
    expect(isCodiceFiscale("06363391001")).toBe(true);
    expect(isCodiceFiscale("06363391002")).toBe(false);
    expect(isCodiceFiscale("00000000000")).toBe(false);
  });
});

describe("isPartitaIva", () => {
  it.each(["06363391001", "00743110157"])("accepts %s", (code) => expect(isPartitaIva(code)).toBe(true));

  it.each([
    ["a wrong check digit", "06363391002", "check_digit"],
    ["an office that does not exist (890) though the check digit holds", "12345678903", "office"],
    ["an office that does not exist (789)", "01234567890", "office"],
    ["a taxpayer number of zeros", "00000000000", "taxpayer"],
    ["ten digits", "0636339100", "digits"],
    ["letters", "0636339100A", "digits"],
  ])("refuses %s, naming the rule", (_, code, rule) => {
    expect(isPartitaIva(code)).toBe(false);
    expect(partitaIvaProblem(code)).toBe(rule);
  });
});

describe("isCodiceSdi", () => {
  it("accepts seven letters or digits", () => {
    expect(isCodiceSdi("0000000")).toBe(true);
    expect(isCodiceSdi("M5UXCR1")).toBe(true);
  });
  it("refuses six or eight characters and symbols", () => {
    expect(isCodiceSdi("M5UXCR")).toBe(false);
    expect(isCodiceSdi("M5UXCR12")).toBe(false);
    expect(isCodiceSdi("M5UX-R1")).toBe(false);
  });
});

describe("isCap and isProvince", () => {
  it("a CAP is five digits", () => {
    expect(isCap("00184")).toBe(true);
    expect(isCap("0184")).toBe(false);
    expect(isCap("00184a")).toBe(false);
  });
  it("knows the sigle, one each, and nothing else", () => {
    expect(new Set(PROVINCES).size).toBe(PROVINCES.length);
    expect(PROVINCES.every((sigla) => /^[A-Z]{2}$/.test(sigla))).toBe(true);
    for (const sigla of ["MI", "RM", "SU", "BT", "AO"]) expect(isProvince(sigla)).toBe(true);
    for (const sigla of ["XX", "mi", "M", "ROMA"]) expect(isProvince(sigla)).toBe(false);
  });
});
