// The development mailbox's HTML preview: served with a policy that lets the mail's inline styles
// apply (the portal's own policy refuses them), framed only by the portal, absent in production.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loader as mailHtml } from "#app/routes/dev.mailbox.html.ts";
import type { Services } from "#server/services.ts";
import { testConfig } from "#tests/support/config.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createRouterContext, loaderArgs } from "#tests/support/router-context.ts";
import { thrownResponse } from "#tests/support/requests.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;

beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
  services = await createTestServices(database);
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

describe("/dev/mailbox/<id>/html", () => {
  it("serves the mail's HTML with inline styles allowed, nothing runnable, and framing by the portal only", async () => {
    const html = '<p style="color:#a4243b">Benvenuto</p>';
    await services.mail.send({ to: "anteprima@example.it", subject: "Prova", text: "Benvenuto", html });
    const [mail] = await services.mail.listOutbox(1);
    const response = (await mailHtml(loaderArgs(services, `/dev/mailbox/${mail!.id}/html`, { id: mail!.id }))) as Response;
    expect(await response.text()).toBe(html);
    const policy = response.headers.get("content-security-policy")!;
    expect(policy).toContain("style-src 'unsafe-inline'");
    expect(policy).toContain("frame-ancestors 'self'");
    expect(policy).toContain("sandbox");
    expect(policy).not.toContain("script-src");
    expect(policy).toContain("default-src 'none'");
  });

  it("does not exist in production, nor for an unknown mail", async () => {
    const production = testConfig({ NODE_ENV: "production", PAYMENTS: "sandbox", PUBLIC_ORIGIN: "https://portale.example.it" });
    const args = {
      ...loaderArgs(services, "/dev/mailbox/x/html", { id: "x" }),
      context: createRouterContext(services, production),
    };
    expect((await thrownResponse(mailHtml(args))).status).toBe(404);
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await thrownResponse(mailHtml(loaderArgs(services, `/dev/mailbox/${unknown}/html`, { id: unknown })))).status).toBe(
      404,
    );
  });
});
