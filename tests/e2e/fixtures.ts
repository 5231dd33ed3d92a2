// What tests/e2e/prepare-server.ts made for the browser tests, read from $E2E_DATA_DIR.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { PurchasesFixtures } from "./purchases-fixtures.ts";

export const E2E_PASSWORD = "Segreta1!";

type DemoCode = { code: string; product: string };

export type E2eFixtures = {
  codes: { ebook: DemoCode; paper: DemoCode; course: DemoCode; journal: DemoCode; ebookEdu: DemoCode; singleUse: string[] };
  student: { email: string; started: { name: string; chapter: string }; expired: string; fresh: string; course: string };
  professor: { email: string; journal: string };
  professional: { email: string };
  purchases: PurchasesFixtures;
};

let cached: E2eFixtures | undefined;

export function fixtures(): E2eFixtures {
  cached ??= JSON.parse(readFileSync(path.join(process.env.E2E_DATA_DIR!, "fixtures.json"), "utf8")) as E2eFixtures;
  return cached;
}
