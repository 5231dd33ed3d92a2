// Starts the local SMTP server the e2e portal sends its mail to (SMTP_URL in playwright.config.ts)
// and files every mail it receives in E2E_MAIL_DIR, where any test worker can read it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { startSmtpServer } from "../support/smtp.ts";

export default async function globalSetup() {
  const dir = process.env.E2E_MAIL_DIR!;
  let n = 0;
  const smtp = await startSmtpServer({
    port: Number(process.env.E2E_SMTP_PORT),
    onMail: (mail) => writeFileSync(path.join(dir, `${Date.now()}-${n++}.json`), JSON.stringify(mail)),
  });
  return () => smtp.close();
}
