// /dev/mailbox/<id>/html: the HTML body of an outbox mail, for the mailbox's preview frame. It is
// served on its own, with a policy of its own: mail HTML is styled inline (mail clients drop
// <style>), which the portal's policy refuses, and a srcdoc frame would inherit that policy.
// Nothing in it runs (no scripts, sandboxed), and only the portal may frame it. Absent in production.
import { servicesContext, settingsContext } from "#shared/context.ts";
import type { Route } from "./+types/dev.mailbox.html";

export async function loader({ params, context }: Route.LoaderArgs) {
  if (context.get(settingsContext).isProduction) throw new Response("Not Found", { status: 404 });
  const mail = await context.get(servicesContext).mail.getOutboxMail(params.id);
  if (!mail) throw new Response("Not Found", { status: 404 });
  return new Response(mail.html, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; sandbox",
      "X-Frame-Options": "SAMEORIGIN",
      "Cache-Control": "no-store",
      "X-Robots-Tag": "noindex",
    },
  });
}
