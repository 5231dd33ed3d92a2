// PLACEHOLDER — being written (reading sessions and the built-in reader).
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";

export type ReadingOptions = { db: Database; readerUrlTemplate: string | null; links: Config["links"] };

export function createReading(_options: ReadingOptions) {
  return {};
}

export type Reading = ReturnType<typeof createReading>;
