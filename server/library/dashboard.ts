// PLACEHOLDER — being written (the dashboard's queries).
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";

export function createLibraryDashboard(_options: { db: Database; links: Config["links"] }) {
  return {};
}
