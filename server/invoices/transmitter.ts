// Sending e-invoices to SDI (the Agenzia delle Entrate's exchange system) is a port: the publisher's
// intermediary, or its own SDI channel, goes behind it. The default writes each file into a folder
// (SDI_OUTBOX_DIR) for whatever collects them there; no intermediary is called by the portal or its tests.
import { existsSync } from "node:fs";
import { readdir, readFile, rename, stat } from "node:fs/promises";
import path from "node:path";
import { makePrivateDir, writePrivateFile } from "#server/lib/private-files.ts";

type InvoiceFile = {
  /** IT<seller's Partita IVA>_<progressive>.xml: SDI's naming rule. */
  fileName: string;
  xml: string;
};

export type InvoiceTransmitter = {
  /** Hands the file over; throws when it could not (the job tries again later). Safe to repeat. */
  send(file: InvoiceFile): Promise<void>;
};

/**
 * Writes each file into `dir`, whole or not at all (written aside, then renamed into place), as
 * the owner's only: an invoice names its buyer, their codice fiscale and address.
 */
export function outboxTransmitter(dir: string): InvoiceTransmitter {
  return {
    async send({ fileName, xml }) {
      if (path.basename(fileName) !== fileName) throw new Error(`Not a file name: ${fileName}`);
      await makePrivateDir(dir);
      const partial = path.join(dir, `.${fileName}.partial`);
      await writePrivateFile(partial, xml);
      await rename(partial, path.join(dir, fileName));
    },
  };
}

// The other half of the port: what SDI says of each file (RC delivered, MC not delivered, NS
// rejected), read by every instance's job runner (server/invoices/inbox.ts). The default reads
// the notifications an intermediary drops into a folder (SDI_INBOX_DIR) under SDI's file names.

/** A file waiting in SDI's inbox: its name, and its bytes (null when larger than the limit: not read). */
type InboxFile = { name: string; content: Buffer | null };

export type SdiInbox = {
  /** Up to `limit` files waiting, in name order (SDI numbers a file's notifications in order), but not those `skip` names. */
  list(limit: number, skip: (name: string) => boolean): Promise<InboxFile[]>;
  /** Out of the inbox once its notification is committed; false when another instance took it out first. */
  done(name: string): Promise<boolean>;
  /** Out of the inbox into `rejected` (unreadable) or `unknown` (about no file of the portal's): kept, never deleted. */
  setAside(name: string, folder: "rejected" | "unknown"): Promise<boolean>;
};

/**
 * Reads `dir`: every plain file whose name does not start with a dot (an intermediary writes a
 * file aside, then renames it in, as the outbox does). A file read moves to `done/`, `rejected/` or
 * `unknown/` beside it, under its own name or, when that is taken (the same notification dropped
 * twice), its name and `.1`, `.2`…: nothing is overwritten.
 */
export function inboxFolder(dir: string, maxBytes: number): SdiInbox {
  async function moveTo(name: string, folder: string): Promise<boolean> {
    if (path.basename(name) !== name) throw new Error(`Not a file name: ${name}`);
    const target = path.join(dir, folder);
    await makePrivateDir(target);
    let destination = path.join(target, name);
    for (let n = 1; existsSync(destination); n++) destination = path.join(target, `${name}.${n}`);
    try {
      await rename(path.join(dir, name), destination);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }

  return {
    async list(limit, skip) {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      const names = entries
        .filter((e) => e.isFile() && !e.name.startsWith(".") && !skip(e.name))
        .map((e) => e.name)
        .sort()
        .slice(0, limit);
      const files: InboxFile[] = [];
      for (const name of names) {
        try {
          const file = path.join(dir, name);
          const { size } = await stat(file);
          files.push({ name, content: size > maxBytes ? null : await readFile(file) });
        } catch (error) {
          // Taken out meanwhile by another instance.
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        }
      }
      return files;
    },
    done: (name) => moveTo(name, "done"),
    setAside: (name, folder) => moveTo(name, folder),
  };
}
