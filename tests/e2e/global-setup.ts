// Starts the local SMTP server the e2e portals send their mail to (SMTP_URL in playwright.config.ts)
// and files every mail it receives in E2E_MAIL_DIR, where any test worker can read it; and the
// stand-in of Stripe's API the Stripe portal talks to (STRIPE_API_BASE), which the browser tests
// also reach in place of Stripe's own origins (stripe-support.ts).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { startFakeStripe } from "#tests/support/fake-stripe.ts";
import { startSmtpServer } from "#tests/support/smtp.ts";

export default async function globalSetup() {
  const dir = process.env.E2E_MAIL_DIR!;
  let n = 0;
  const smtp = await startSmtpServer({
    port: Number(process.env.E2E_SMTP_PORT),
    onMail: (mail) => writeFileSync(path.join(dir, `${Date.now()}-${n++}.json`), JSON.stringify(mail)),
  });
  const stripe = await startFakeStripe({ port: Number(process.env.E2E_STRIPE_API_PORT) });
  return async () => {
    await stripe.close();
    await smtp.close();
  };
}
