// Sending e-invoices to SDI (the Agenzia delle Entrate's exchange system) is a port: the publisher's
// intermediary, or its own SDI channel, goes behind it. The default writes each file into a folder
// (SDI_OUTBOX_DIR) for whatever collects them there; no intermediary is called by the portal or its tests.
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";

type InvoiceFile = {
  /** IT<seller's Partita IVA>_<progressive>.xml: SDI's naming rule. */
  fileName: string;
  xml: string;
};

export type InvoiceTransmitter = {
  /** Hands the file over; throws when it could not (the job tries again later). Safe to repeat. */
  send(file: InvoiceFile): Promise<void>;
};

/** Writes each file into `dir`, whole or not at all (written aside, then renamed into place). */
export function outboxTransmitter(dir: string): InvoiceTransmitter {
  return {
    async send({ fileName, xml }) {
      if (path.basename(fileName) !== fileName) throw new Error(`Not a file name: ${fileName}`);
      await mkdir(dir, { recursive: true });
      const partial = path.join(dir, `.${fileName}.partial`);
      await writeFile(partial, xml);
      await rename(partial, path.join(dir, fileName));
    },
  };
}
