// Italian identifiers of a buyer and an address, checked as the checkout needs them (spec §5):
// Codice Fiscale, Partita IVA, Codice Univoco SDI, CAP and province. Pure: the checkout's form
// schema uses them on the server, and nothing here needs a dataset or a library (the packages
// that check a codice fiscale bring a dataset of municipalities, or a ShareAlike licence).

/** Upper case, without spaces: "rss mra 85t10 a562s" → "RSSMRA85T10A562S". */
export function normalizeId(value: string): string {
  return value.replace(/\s+/g, "").toUpperCase();
}

// A person's codice fiscale: surname, name, year, month, day and sex, municipality, check letter.
// Where two people would share a code, digits are replaced by letters (omocodia): L M N P Q R S T U V.
const PERSONAL_CODE = /^[A-Z]{6}[0-9LMNP-V]{2}[ABCDEHLMPRST][0-9LMNP-V]{2}[A-Z][0-9LMNP-V]{3}[A-Z]$/;
/** What a character at an odd position (1st, 3rd, …) counts for the check letter; digits as the letter of their index. */
const ODD_VALUES = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];

/** The index of a digit or letter: 0–9 for digits, 0–25 for A–Z. */
const indexOf = (char: string) => (char >= "0" && char <= "9" ? char.charCodeAt(0) - 48 : char.charCodeAt(0) - 65);

function personalCheckLetter(first15: string): string {
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const index = indexOf(first15[i]!);
    sum += i % 2 === 0 ? ODD_VALUES[index]! : index;
  }
  return String.fromCharCode(65 + (sum % 26));
}

/** The check digit of eleven digits (Partita IVA, a company's codice fiscale): a Luhn sum of the first ten. */
function numericCheckDigitHolds(digits: string): boolean {
  if (!/^\d{11}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 11; i++) {
    const digit = digits.charCodeAt(i) - 48;
    if (i % 2 === 0) sum += digit;
    else sum += digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
  }
  return sum % 10 === 0;
}

/**
 * A Codice Fiscale: a person's (16 characters, its check letter right, omocodia allowed) or a
 * company's or association's (11 digits with their check digit). Give it normalized.
 */
export function isCodiceFiscale(code: string): boolean {
  if (code.length === 16) return PERSONAL_CODE.test(code) && personalCheckLetter(code.slice(0, 15)) === code[15];
  return numericCheckDigitHolds(code) && !code.startsWith("0000000");
}

/** A Codice Fiscale of 11 digits: a body's (an association, a company), never a person's. Give it normalized. */
export function isBodyFiscalCode(code: string): boolean {
  return /^\d{11}$/.test(code);
}

/**
 * A Partita IVA: 11 digits with their check digit; the first seven (the taxpayer's number) not
 * all zero, and the next three a provincial office that exists (001–100, 120, 121), or 888 and
 * 999 (given by the Agenzia delle Entrate itself). Give it normalized.
 */
export function isPartitaIva(code: string): boolean {
  return partitaIvaProblem(code) === null;
}

/** Which rule of a Partita IVA `code` breaks (see isPartitaIva), so that a message can name it; null: none. */
export function partitaIvaProblem(code: string): "digits" | "taxpayer" | "office" | "check_digit" | null {
  if (!/^\d{11}$/.test(code)) return "digits";
  if (code.startsWith("0000000")) return "taxpayer";
  const office = Number(code.slice(7, 10));
  if (!((office >= 1 && office <= 100) || office === 120 || office === 121 || office === 888 || office === 999)) return "office";
  return numericCheckDigitHolds(code) ? null : "check_digit";
}

/** A Codice Univoco (Codice Destinatario) for e-invoices through SDI: 7 letters or digits. Give it normalized. */
export function isCodiceSdi(code: string): boolean {
  return /^[A-Z0-9]{7}$/.test(code);
}

/** A CAP: five digits. */
export function isCap(value: string): boolean {
  return /^\d{5}$/.test(value);
}

/**
 * The provinces' sigle (ISTAT), those of Sardinia's provinces before and after their
 * reorganisations included: an address written with either is delivered.
 */
export const PROVINCES: readonly string[] = [
  "AG",
  "AL",
  "AN",
  "AO",
  "AP",
  "AQ",
  "AR",
  "AT",
  "AV",
  "BA",
  "BG",
  "BI",
  "BL",
  "BN",
  "BO",
  "BR",
  "BS",
  "BT",
  "BZ",
  "CA",
  "CB",
  "CE",
  "CH",
  "CI",
  "CL",
  "CN",
  "CO",
  "CR",
  "CS",
  "CT",
  "CZ",
  "EN",
  "FC",
  "FE",
  "FG",
  "FI",
  "FM",
  "FR",
  "GE",
  "GO",
  "GR",
  "IM",
  "IS",
  "KR",
  "LC",
  "LE",
  "LI",
  "LO",
  "LT",
  "LU",
  "MB",
  "MC",
  "ME",
  "MI",
  "MN",
  "MO",
  "MS",
  "MT",
  "NA",
  "NO",
  "NU",
  "OG",
  "OR",
  "OT",
  "PA",
  "PC",
  "PD",
  "PE",
  "PG",
  "PI",
  "PN",
  "PO",
  "PR",
  "PT",
  "PU",
  "PV",
  "PZ",
  "RA",
  "RC",
  "RE",
  "RG",
  "RI",
  "RM",
  "RN",
  "RO",
  "SA",
  "SI",
  "SO",
  "SP",
  "SR",
  "SS",
  "SU",
  "SV",
  "TA",
  "TE",
  "TN",
  "TO",
  "TP",
  "TR",
  "TS",
  "TV",
  "UD",
  "VA",
  "VB",
  "VC",
  "VE",
  "VI",
  "VR",
  "VS",
  "VT",
  "VV",
];
const PROVINCE_SET = new Set(PROVINCES);

/** A province's sigla, in capitals ("MI"). */
export function isProvince(value: string): boolean {
  return PROVINCE_SET.has(value);
}
