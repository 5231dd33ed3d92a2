// Reads the mail the e2e portal sent (see global-setup.ts).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";
import type { ReceivedMail } from "#tests/support/smtp.ts";

function mailTo(address: string): ReceivedMail[] {
  const dir = process.env.E2E_MAIL_DIR!;
  return readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as ReceivedMail)
    .filter((m) => m.to.includes(address.toLowerCase()));
}

/** The link of the newest mail to `address` whose subject matches, waiting for it to arrive. */
export async function linkFromMail(address: string, subject: RegExp, linkPath: RegExp): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(() => {
      const mail = mailTo(address)
        .filter((m) => subject.test(m.subject))
        .at(-1);
      link = mail?.text.match(new RegExp(`https?://[^\\s]*${linkPath.source}[^\\s]*`))?.[0];
      return link;
    })
    .toBeTruthy();
  return new URL(link!).pathname;
}
