// The registration action: account, welcome mail, audit entry, the spec's answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormReply } from "#app/lib/form-reply.ts";
import { MESSAGES } from "#shared/messages.ts";
import { action as registerAction } from "#app/routes/register.tsx";
import type { Services } from "#server/services.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { formPost } from "#tests/support/requests.ts";
import { createRouterContext } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

const fields = (email: string) => ({ firstname: "Lucia", lastname: "Moro", email, password: "Segreta1!", terms: "on" });

async function register(form: Record<string, string>, url = "/register/?redirect=%2Fedu%2F") {
  return (await registerAction({
    request: formPost(url, form),
    params: {},
    context: createRouterContext(services),
    url: new URL(url, "http://localhost:3000"),
    pattern: "",
  })) as unknown;
}

describe("registration", () => {
  it("creates the account, welcomes it by mail and starts the sign-in, keeping redirect", async () => {
    const response = (await register(fields("  Lucia.Moro@Example.it "))) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login/?redirect=%2Fedu%2F");
    const user = await services.accounts.findActiveByEmail("lucia.moro@example.it");
    expect(user).not.toBeNull();
    const [mail] = await services.mail.listOutbox(1);
    expect(mail).toMatchObject({ to: "lucia.moro@example.it", subject: "Benvenuto in Novalex Editore" });
    expect((await services.audit.listForUser(user!.id)).map((e) => e.event)).toEqual(["account_registered"]);
  });

  it("answers 'Email già registrata' for the same address in any case, with the way to sign in", async () => {
    const result = (await register(fields("LUCIA.MORO@example.it"))) as { data: FormReply<string>; init: ResponseInit };
    expect(result.init.status).toBe(409);
    expect(result.data.alert).toEqual({
      title: MESSAGES.emailTaken,
      text: MESSAGES.emailTakenText,
      link: { href: "/login/?redirect=%2Fedu%2F", label: "Pagina Login" },
    });
    // What was typed comes back, never the password.
    expect(result.data.values).toEqual({ firstname: "Lucia", lastname: "Moro", email: "LUCIA.MORO@example.it", terms: "on" });
  });

  it("refuses missing fields with the spec's messages, each beside its field", async () => {
    const result = (await register({ firstname: " ", lastname: "", email: "", password: "" })) as {
      data: FormReply<string>;
      init: ResponseInit;
    };
    expect(result.init.status).toBe(400);
    expect(result.data.fieldErrors).toEqual({
      firstname: MESSAGES.firstnameRequired,
      lastname: MESSAGES.lastnameRequired,
      email: MESSAGES.emailRequired,
      password: MESSAGES.passwordRequired,
      terms: MESSAGES.termsRequired,
    });
  });

  it("creates nothing when the honeypot is filled in", async () => {
    await register({ ...fields("bot@example.it"), website: "https://spam.example" });
    expect(await services.accounts.findActiveByEmail("bot@example.it")).toBeNull();
  });
});
