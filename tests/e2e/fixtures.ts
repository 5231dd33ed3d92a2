// What tests/e2e/prepare-server.ts made for the browser tests, read from $E2E_DATA_DIR (or the
// Stripe portal's $E2E_STRIPE_DATA_DIR).
import { readFileSync } from "node:fs";
import path from "node:path";
import type { PurchasesFixtures } from "./purchases-fixtures.ts";
import type { RefundsFixtures } from "./refunds-fixtures.ts";
import type { ProvenanceFixtures } from "./provenance-fixtures.ts";
import type { UndeliveredInvoiceFixtures } from "./sdi-fixtures.ts";

export const E2E_PASSWORD = "Segreta1!";

type DemoCode = { code: string; product: string };

export type E2eFixtures = {
  codes: { ebook: DemoCode; paper: DemoCode; course: DemoCode; journal: DemoCode; ebookEdu: DemoCode; singleUse: string[] };
  student: { email: string; started: { name: string; chapter: string }; expired: string; fresh: string; course: string };
  professor: { email: string; journal: string };
  professional: { email: string };
  purchases: PurchasesFixtures;
  refunds: RefundsFixtures;
  provenance: ProvenanceFixtures;
  /** An order whose e-invoice SDI could not deliver (MC). */
  undeliveredInvoice: UndeliveredInvoiceFixtures;
  /** Customers for one test each (tests/e2e/customers.ts), by kind: their e-mails; the password is E2E_PASSWORD. */
  pool: Record<PoolKind, string[]>;
};

/** `new`: no first access yet; `student` and `professional`: first access done. */
export type PoolKind = "new" | "student" | "professional";

/** Where, in the server's data folder, each claimed customer of the pool has a file (customers.ts). */
export const CLAIMS_FOLDER = "claimed-customers";

const cached = new Map<string, E2eFixtures>();

export function fixtures(dataDir = process.env.E2E_DATA_DIR!): E2eFixtures {
  let read = cached.get(dataDir);
  if (!read) cached.set(dataDir, (read = JSON.parse(readFileSync(path.join(dataDir, "fixtures.json"), "utf8")) as E2eFixtures));
  return read;
}
