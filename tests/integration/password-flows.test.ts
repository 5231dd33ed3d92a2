// Forgotten password, reset by link (both variants) and change from the profile, through the
// routes' loaders and actions as React Router calls them, over real services; what the pages
// show is rendered from the same loader and action data, as without JavaScript.
import { createElement, type ComponentType } from "react";
import { renderToString } from "react-dom/server";
import { createCookie, createRoutesStub } from "react-router";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ForgotPassword, { action as forgotAction, loader as forgotLoader } from "#app/routes/forgot-password.tsx";
import MandatoryReset, { action as mandatoryAction, loader as mandatoryLoader } from "#app/routes/mandatory-password-reset.tsx";
import PasswordUpdated from "#app/routes/password-updated.tsx";
import ChangePassword, { action as changeActionBare, loader as changeLoaderBare } from "#app/routes/profile.change-password.tsx";
import ResetPassword, { action as resetAction, loader as resetLoader } from "#app/routes/reset-password.tsx";
import { requestContext } from "#shared/context.ts";
import type { FormReply } from "#app/lib/form-reply.ts";
import { MESSAGES } from "#shared/messages.ts";
import { createSessionStore } from "#server/accounts/sessions.ts";
import { users } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createRouterContext } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const changeAction = behindSignIn(changeActionBare);
const changeLoader = behindSignIn(changeLoaderBare);

let database: TestDatabase;
let services: Services;
let accounts = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  // Until server/services.ts creates it (see the route), the tests add the password-change service.
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

// ---------------------------------------------------------------------------------------------
// Requests as a browser sends them, and answers as the browser gets them

const ORIGIN = "http://localhost:3000";
let ipCounter = 0;
/** A client address of its own for each test, so that the rate limits of one do not touch another. */
const freshIp = () => `198.51.100.${++ipCounter}`;

type Call = { method?: "GET" | "POST"; fields?: Record<string, string>; cookie?: string; ip?: string };

function routeArgs<P extends Record<string, string>>(path: string, params: P, { method = "GET", fields, cookie, ip }: Call = {}) {
  const url = new URL(path, ORIGIN);
  const headers = new Headers(cookie ? { cookie } : {});
  let body: URLSearchParams | undefined;
  if (method === "POST") {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(fields ?? {});
  }
  const context = createRouterContext(services);
  if (ip) context.set(requestContext, { ...context.get(requestContext), ip });
  return { request: new Request(url, { method, headers, body }), url, params, context, pattern: "" };
}

type Answer<T> = { status: number; data: T | undefined; location: string | null; setCookies: string[] };

/** What a loader or action answered, returned or thrown: a redirect, or data with a status. */
async function answer<T = Record<string, unknown>>(run: () => Promise<unknown>): Promise<Answer<T>> {
  let result: unknown;
  try {
    result = await run();
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    result = thrown;
  }
  if (result instanceof Response) {
    return {
      status: result.status,
      data: undefined,
      location: result.headers.get("Location"),
      setCookies: result.headers.getSetCookie(),
    };
  }
  if (result && typeof result === "object" && "init" in result && "data" in result) {
    const { data, init } = result as { data: T; init: ResponseInit | null };
    return { status: init?.status ?? 200, data, location: null, setCookies: [] };
  }
  return { status: 200, data: result as T, location: null, setCookies: [] };
}

/** The page as the server renders it for this loader data (and action data, after a post). */
function render(Component: unknown, pattern: string, path: string, loaderData: unknown, actionData?: unknown): string {
  const Stub = createRoutesStub([
    {
      id: "page",
      path: pattern,
      Component: Component as ComponentType,
      loader: () => loaderData,
      action: () => actionData ?? null,
    },
  ]);
  return renderToString(
    createElement(Stub, {
      initialEntries: [path],
      hydrationData: {
        loaderData: { page: loaderData },
        ...(actionData === undefined ? {} : { actionData: { page: actionData } }),
      },
    }),
  );
}

/** React escapes apostrophes; the texts are compared as the browser shows them. */
const visible = (html: string) => html.replaceAll("&#x27;", "'").replaceAll("&amp;", "&");

async function newAccount(password = "Vecchia1!") {
  const email = `cliente${++accounts}@example.it`;
  const r = await services.accounts.register({ firstname: "Anna", lastname: "Verdi", email, password });
  if (!r.ok) throw new Error("setup");
  return { id: r.user.id, email, password };
}

/** A signed-in browser of the account: its session id and Cookie header (see relying-party.ts). */
async function signIn(userId: string) {
  const sessionId = await createSessionStore(database.db).create(userId, {
    accessToken: "access",
    accessTokenExpiresAt: new Date(Date.now() + 60 * 60 * 1000),
    refreshToken: null,
    idToken: "id",
  });
  const cookie = (await createCookie("portal_session").serialize(sessionId)).split(";")[0]!;
  return { sessionId, cookie };
}

const isSignedIn = async (cookie: string) =>
  (await services.auth.currentUser(new Request(ORIGIN, { headers: { cookie } }))) !== null;

async function toastOf(setCookies: string[]) {
  const cookie = setCookies.map((c) => c.split(";")[0]).join("; ");
  return services.flash.read(new Request(ORIGIN, { headers: { cookie } }));
}

async function eventsOf(userId: string) {
  return (await services.audit.listForUser(userId)).map((e) => e.event);
}

const outboxTo = async (email: string) => (await services.mail.listOutbox(500)).filter((m) => m.to === email);

/** Asks for a link for `email` and returns the link's token, read from the mail. */
async function requestLink(email: string) {
  const sent = await answer(() =>
    forgotAction(routeArgs("/forgot-password/", {}, { method: "POST", fields: { email }, ip: freshIp() })),
  );
  expect(sent.status).toBe(302);
  const [mail] = await outboxTo(email);
  const token = /\/forgot-password\/reset\/([A-Za-z0-9_-]+)/.exec(mail!.text)?.[1];
  expect(token).toBeTruthy();
  return token!;
}

// ---------------------------------------------------------------------------------------------

describe("/forgot-password/", () => {
  type ForgotData = FormReply<"email">;
  const post = (email: string, ip = freshIp()) =>
    answer<ForgotData>(() => forgotAction(routeArgs("/forgot-password/", {}, { method: "POST", fields: { email }, ip })));

  it("shows the e-mail field and 'Invia'", async () => {
    const page = await answer(() => forgotLoader(routeArgs("/forgot-password/", {})));
    expect(page.data).toEqual({ email: "", sent: false });
    const html = visible(render(ForgotPassword, "/forgot-password", "/forgot-password/", page.data));
    expect(html).toContain("<title>Password dimenticata · Novalex Editore</title>");
    const emailInput = /<input[^>]*\bname="email"[^>]*>/.exec(html)?.[0] ?? "";
    const emailId = /\bid="([^"]+)"/.exec(emailInput)?.[1];
    expect(html).toMatch(new RegExp(`<label[^>]*for="${emailId}"[^>]*>Email</label>`));
    expect(html).toContain(">Invia</button>");
    expect(html).not.toContain("Rinvia");
  });

  it("sends the account's owner a link, records it, and comes back with the toast and 'Rinvia'", async () => {
    const account = await newAccount();
    // Typed with spaces and capitals: the account is found all the same, and the page comes back
    // with the address as typed (trimmed).
    const typed = account.email.toUpperCase();
    const sent = await post(` ${typed} `);
    expect(sent.status).toBe(302);
    // The address stays out of the URL (which reaches logs and history): a cookie keeps it.
    expect(sent.location).toBe("/forgot-password/");
    expect(sent.setCookies.join("\n")).not.toContain(encodeURIComponent(account.email));
    expect(await toastOf(sent.setCookies)).toEqual({
      type: "success",
      title: "Richiesta inviata, controlla la tua casella email",
    });

    const [mail, ...others] = await outboxTo(account.email);
    expect(others).toHaveLength(0);
    expect(mail!.subject).toBe("Reimposta la tua password");
    const link = /http:\/\/localhost:3000\/forgot-password\/reset\/([A-Za-z0-9_-]{43})/.exec(mail!.text);
    expect(link).not.toBeNull();
    expect(await services.passwordResets.isUsable(link![1]!, "reset")).toBe(true);
    expect(await eventsOf(account.id)).toContain("password_reset_requested");

    // The page it comes back to keeps the address and offers 'Rinvia', which posts it again.
    const cookie = sent.setCookies.map((c) => c.split(";")[0]).join("; ");
    const back = await answer(() => forgotLoader(routeArgs(sent.location!, {}, { cookie })));
    expect(back.data).toEqual({ email: typed, sent: true });
    const html = visible(render(ForgotPassword, "/forgot-password", sent.location!, back.data));
    expect(html).toContain(`<input type="hidden" name="email" value="${typed}"/>`);
    expect(html).toContain(">Rinvia</button>");
    const resent = await post(typed);
    expect(resent.status).toBe(302);
    expect(await outboxTo(account.email)).toHaveLength(2);
  });

  it("answers 'Email non trovata' for an address without an account, and sends nothing", async () => {
    const before = (await services.mail.listOutbox(500)).length;
    const result = await post("nessuno@example.it");
    expect(result.status).toBe(404);
    expect(result.data?.alert?.title).toBe("Email non trovata");
    expect((await services.mail.listOutbox(500)).length).toBe(before);
    const html = visible(
      render(ForgotPassword, "/forgot-password", "/forgot-password/", { email: "", sent: false }, result.data),
    );
    expect(html).toMatch(/role="alert"[^>]*>.*Email non trovata/s);
    expect(html).toContain('value="nessuno@example.it"');
  });

  it.each([
    ["", MESSAGES.emailRequired],
    ["   ", MESSAGES.emailRequired],
    ["non-una-email", MESSAGES.emailInvalid],
    ["anna@", MESSAGES.emailInvalid],
  ])("refuses %j with '%s', shown beside the field", async (email, message) => {
    const result = await post(email);
    expect(result.status).toBe(400);
    expect(result.data?.fieldErrors?.email).toBe(message);
    const html = visible(
      render(ForgotPassword, "/forgot-password", "/forgot-password/", { email: "", sent: false }, result.data),
    );
    const input = /<input[^>]*\bname="email"[^>]*>/.exec(html)?.[0] ?? "";
    expect(input).toContain('aria-invalid="true"');
    expect(html).toContain(`<p id="${/aria-describedby="([^"]+)"/.exec(input)?.[1]}" class="field-error">${message}</p>`);
  });

  it("sends at most 3 links an hour to one address, then says 'Troppe richieste' and sends nothing", async () => {
    const account = await newAccount();
    for (let i = 0; i < 3; i++) expect((await post(account.email)).status).toBe(302);
    const refused = await post(account.email);
    expect(refused.status).toBe(429);
    expect(refused.data?.alert?.title).toBe("Troppe richieste");
    expect(refused.data?.alert?.text).toMatch(/^Per sicurezza non abbiamo inviato nessuna email\. Riprova tra \d+ minuti\.$/);
    expect(await outboxTo(account.email)).toHaveLength(3);
  });

  it("takes at most 5 requests an hour from one client address, whatever the addresses asked for", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await post(`sonda${i}@example.it`, ip)).status).toBe(404);
    const account = await newAccount();
    const refused = await post(account.email, ip);
    expect(refused.status).toBe(429);
    expect(refused.data?.alert?.title).toBe(MESSAGES.tooManyRequests);
    expect(await outboxTo(account.email)).toHaveLength(0);
  });
});

describe("/forgot-password/reset/:token", () => {
  type ResetData = FormReply<string>;
  const pagePath = (token: string) => `/forgot-password/reset/${token}`;
  const load = (token: string, cookie?: string) =>
    answer<{ usable: boolean }>(() => resetLoader(routeArgs(pagePath(token), { token }, { cookie })));
  const submit = (token: string, fields: Record<string, string>, ip = freshIp()) =>
    answer<ResetData>(() => resetAction(routeArgs(pagePath(token), { token }, { method: "POST", fields, ip })));
  const show = (token: string, loaderData: unknown, actionData?: unknown) =>
    visible(render(ResetPassword, "/forgot-password/reset/:token", pagePath(token), loaderData, actionData));

  it("from the mailed link to a new password: every session ends, the old password stops working, the link dies", async () => {
    const account = await newAccount();
    const token = await requestLink(account.email);
    const browsers = [await signIn(account.id), await signIn(account.id)];

    const page = await load(token);
    expect(page.data).toEqual({ usable: true });
    const html = show(token, page.data);
    expect(html).toContain("<title>Nuova password · Novalex Editore</title>");
    expect(html).toMatch(/<label[^>]*for="password"[^>]*>Nuova password<\/label>/);
    expect(html).toMatch(/<label[^>]*for="confirmation"[^>]*>Conferma la nuova password<\/label>/);
    expect(html).toContain("8 caratteri o più");
    expect(html).toMatch(/<input[^>]*aria-describedby="password-hints"/);

    const done = await submit(token, { password: "Nuovissima2#", confirmation: "Nuovissima2#" });
    expect(done.status).toBe(302);
    expect(done.location).toBe("/forgot-password/password-updated");

    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(false);
    expect((await services.accounts.verifyCredentials(account.email, "Nuovissima2#")).ok).toBe(true);
    for (const browser of browsers) expect(await isSignedIn(browser.cookie)).toBe(false);
    expect(await eventsOf(account.id)).toContain("password_reset");

    // The link is dead: the page says so and offers another, and a second submission fails.
    const dead = await load(token);
    expect(dead.data).toEqual({ usable: false });
    const deadHtml = show(token, dead.data);
    expect(deadHtml).toContain("Ooops. il tuo link è scaduto!");
    expect(deadHtml).toMatch(/href="\/forgot-password\/"[^>]*>Richiedi un nuovo link</);
    expect(deadHtml).not.toContain('name="password"');

    const again = await submit(token, { password: "Altra1234!", confirmation: "Altra1234!" });
    expect(again.status).toBe(400);
    expect(again.data?.alert).toEqual({
      title: "Password non impostata",
      text: "La sessione è scaduta, prova a richiedere di nuovo il cambio della password",
    });
    const againHtml = show(token, { usable: false }, again.data);
    expect(againHtml).toMatch(/role="alert"[^>]*>.*Password non impostata.*La sessione è scaduta/s);
    expect((await services.accounts.verifyCredentials(account.email, "Nuovissima2#")).ok).toBe(true);
  });

  it("the confirmation page says 'Password aggiornata' and leads to the sign-in", () => {
    const html = visible(render(PasswordUpdated, "/forgot-password/password-updated", "/forgot-password/password-updated", null));
    expect(html).toContain("<h1");
    expect(html).toContain("Password aggiornata");
    expect(html).toMatch(/href="\/login\/"[^>]*>Accedi</);
  });

  it.each([
    [
      { password: "", confirmation: "" },
      { password: MESSAGES.passwordRequired, confirmation: MESSAGES.passwordConfirmationRequired },
    ],
    [{ password: "debole", confirmation: "debole" }, { password: MESSAGES.passwordRule }],
    [{ password: "senzaspeciali1A", confirmation: "senzaspeciali1A" }, { password: MESSAGES.passwordRule }],
    [{ password: "Nuovissima2#", confirmation: "" }, { confirmation: MESSAGES.passwordConfirmationRequired }],
    [{ password: "Nuovissima2#", confirmation: "Nuovissima2?" }, { confirmation: MESSAGES.passwordMismatch }],
  ])("refuses %j, showing each message beside its field, and keeps the link alive", async (fields, expected) => {
    const account = await newAccount();
    const token = await requestLink(account.email);
    const result = await submit(token, fields);
    expect(result.status).toBe(400);
    expect(result.data?.fieldErrors).toEqual(expected);
    const html = show(token, { usable: true }, result.data);
    for (const [field, message] of Object.entries(expected)) {
      expect(html).toContain(`<p id="${field}-error" class="field-error">${message}</p>`);
      expect(html).toMatch(
        new RegExp(`<input[^>]*id="${field}"[^>]*aria-invalid="true"[^>]*aria-describedby="[^"]*${field}-error"`),
      );
    }
    expect(await services.passwordResets.isUsable(token, "reset")).toBe(true);
    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(true);
  });

  it("shows 'Ooops. il tuo link è scaduto!' for an unknown link, also at the earlier address", async () => {
    expect((await load("link-inventato")).data).toEqual({ usable: false });
    const account = await newAccount();
    const token = await requestLink(account.email);
    // /forgot-password/:token is the same module (app/routes.ts).
    const earlier = await answer(() => resetLoader(routeArgs(`/forgot-password/${token}`, { token })));
    expect(earlier.data).toEqual({ usable: true });
  });

  it("refuses a link of the migrated-account kind", async () => {
    const account = await newAccount();
    const token = await services.passwordResets.issue(account.id, "migrated");
    expect((await load(token)).data).toEqual({ usable: false });
    expect((await submit(token, { password: "Nuovissima2#", confirmation: "Nuovissima2#" })).data?.alert?.title).toBe(
      MESSAGES.passwordNotSet,
    );
  });

  it("limits submissions per client address", async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await submit("link-inventato", { password: "Nuovissima2#", confirmation: "Nuovissima2#" }, ip);
    const refused = await submit("link-inventato", { password: "Nuovissima2#", confirmation: "Nuovissima2#" }, ip);
    expect(refused.status).toBe(429);
    expect(refused.data?.alert?.title).toBe(MESSAGES.tooManyRequests);
  });
});

describe("/mandatory-password/reset/:token (accounts from the old shop)", () => {
  const pagePath = (token: string) => `/mandatory-password/reset/${token}`;
  const show = (token: string, loaderData: unknown, actionData?: unknown) =>
    visible(render(MandatoryReset, "/mandatory-password/reset/:token", pagePath(token), loaderData, actionData));

  it("sets the first password and sends the customer to /login/; then the link is dead", async () => {
    const account = await newAccount();
    await database.db.update(users).set({ migratedFromShop: true }).where(eq(users.id, account.id));
    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(false);
    const token = await services.passwordResets.issue(account.id, "migrated");

    const page = await answer(() => mandatoryLoader(routeArgs(pagePath(token), { token })));
    expect(page.data).toEqual({ usable: true });
    const html = show(token, page.data);
    expect(html).toContain("<title>Reimposta la password · Novalex Editore</title>");
    expect(html).toMatch(/<h1[^>]*>Reimposta la password<\/h1>/);

    const mismatch = await answer(() =>
      mandatoryAction(
        routeArgs(pagePath(token), { token }, { method: "POST", fields: { password: "Nuovissima2#", confirmation: "x" } }),
      ),
    );
    expect(mismatch.status).toBe(400);

    const done = await answer(() =>
      mandatoryAction(
        routeArgs(
          pagePath(token),
          { token },
          { method: "POST", fields: { password: "Nuovissima2#", confirmation: "Nuovissima2#" } },
        ),
      ),
    );
    expect(done.status).toBe(302);
    expect(done.location).toBe("/login/");
    expect((await services.accounts.verifyCredentials(account.email, "Nuovissima2#")).ok).toBe(true);
    expect(await eventsOf(account.id)).toContain("password_reset");

    const dead = await answer(() => mandatoryLoader(routeArgs(pagePath(token), { token })));
    expect(dead.data).toEqual({ usable: false });
    const deadHtml = show(token, dead.data);
    expect(deadHtml).toContain("Ooops. il tuo link è scaduto!");
    expect(deadHtml).toMatch(/href="\/login\/"[^>]*>Accedi</);
  });

  it("does not take a forgotten-password link", async () => {
    const account = await newAccount();
    const token = await services.passwordResets.issue(account.id, "reset");
    expect((await answer(() => mandatoryLoader(routeArgs(pagePath(token), { token })))).data).toEqual({ usable: false });
  });
});

describe("signed-in visitors", () => {
  it("find their own address on the request page (reached from 'Cambio password')", async () => {
    const account = await newAccount();
    const { cookie } = await signIn(account.id);
    const page = await answer<{ email: string; sent: boolean }>(() =>
      forgotLoader(routeArgs("/forgot-password/", {}, { cookie })),
    );
    expect(page.data).toEqual({ email: account.email, sent: false });
  });

  it("are sent away from the reset pages, which show them nothing", async () => {
    const account = await newAccount();
    const { cookie } = await signIn(account.id);
    const token = await services.passwordResets.issue(account.id, "reset");
    const migrated = await services.passwordResets.issue(account.id, "migrated");
    const fields = { password: "Nuovissima2#", confirmation: "Nuovissima2#" };

    const answers = [
      await answer(() => resetLoader(routeArgs(`/forgot-password/reset/${token}`, { token }, { cookie }))),
      await answer(() =>
        resetAction(routeArgs(`/forgot-password/reset/${token}`, { token }, { method: "POST", fields, cookie })),
      ),
      await answer(() => mandatoryLoader(routeArgs(`/mandatory-password/reset/${migrated}`, { token: migrated }, { cookie }))),
      await answer(() =>
        mandatoryAction(
          routeArgs(`/mandatory-password/reset/${migrated}`, { token: migrated }, { method: "POST", fields, cookie }),
        ),
      ),
    ];
    for (const a of answers) expect([a.status, a.location]).toEqual([302, "/"]);
    // Nothing happened: both links still usable, the password unchanged.
    expect(await services.passwordResets.isUsable(token, "reset")).toBe(true);
    expect(await services.passwordResets.isUsable(migrated, "migrated")).toBe(true);
    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(true);
  });
});

describe("/profile/change-password/", () => {
  type ChangeData = FormReply<string, string>;
  const PATH = "/profile/change-password/";
  const change = (fields: Record<string, string>, cookie: string, ip = freshIp()) =>
    answer<ChangeData>(() => changeAction(routeArgs(PATH, {}, { method: "POST", fields, cookie, ip })));
  const show = (actionData?: unknown) => visible(render(ChangePassword, "/profile/change-password", PATH, null, actionData));

  it("is for signed-in customers only", async () => {
    const page = await answer(() => changeLoader(routeArgs(PATH, {})));
    expect(page.status).toBe(302);
    expect(page.location).toBe(`/login/?redirect=${encodeURIComponent(PATH)}`);
    const post = await answer(() => changeAction(routeArgs(PATH, {}, { method: "POST", fields: {} })));
    expect(post.location).toBe(`/login/?redirect=${encodeURIComponent(PATH)}`);
  });

  it("shows 'Cambio password' / 'Modifica Password', three fields and the link to /forgot-password/", async () => {
    const account = await newAccount();
    const { cookie } = await signIn(account.id);
    expect((await answer(() => changeLoader(routeArgs(PATH, {}, { cookie })))).status).toBe(200);
    const html = show();
    expect(html).toContain("<title>Cambio password · Novalex Editore</title>");
    expect(html).toMatch(/<h1[^>]*>Cambio password<\/h1>/);
    expect(html).toMatch(/<h2[^>]*>Modifica Password<\/h2>/);
    expect(html).toMatch(/<label[^>]*for="currentPassword"[^>]*>Password attuale<\/label>/);
    expect(html).toMatch(/<input[^>]*id="currentPassword"[^>]*autocomplete="current-password"/i);
    expect(html).toMatch(/<label[^>]*for="password"[^>]*>Nuova password<\/label>/);
    expect(html).toMatch(/<label[^>]*for="confirmation"[^>]*>Conferma la nuova password<\/label>/);
    expect(html).toContain('href="/forgot-password/"');
  });

  it.each([
    [
      { currentPassword: "", password: "", confirmation: "" },
      {
        currentPassword: MESSAGES.currentPasswordRequired,
        password: MESSAGES.passwordRequired,
        confirmation: MESSAGES.passwordConfirmationRequired,
      },
    ],
    [{ currentPassword: "Vecchia1!", password: "debole", confirmation: "debole" }, { password: MESSAGES.passwordRule }],
    [
      { currentPassword: "Vecchia1!", password: "Nuovissima2#", confirmation: "Nuovissima2" },
      { confirmation: MESSAGES.passwordMismatch },
    ],
  ])("refuses %j with each message beside its field", async (fields, expected) => {
    const account = await newAccount();
    const { cookie } = await signIn(account.id);
    const result = await change(fields, cookie);
    expect(result.status).toBe(400);
    expect(result.data?.fieldErrors).toEqual(expected);
    const html = show(result.data);
    for (const [field, message] of Object.entries(expected)) {
      expect(html).toContain(`<p id="${field}-error" class="field-error">${message}</p>`);
      expect(html).toMatch(new RegExp(`<input[^>]*id="${field}"[^>]*aria-invalid="true"`));
    }
    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(true);
  });

  it("refuses a wrong current password with 'Si è verificato un errore' and the reason", async () => {
    const account = await newAccount();
    const { cookie } = await signIn(account.id);
    const result = await change(
      { currentPassword: "Sbagliata1!", password: "Nuovissima2#", confirmation: "Nuovissima2#" },
      cookie,
    );
    expect(result.status).toBe(400);
    expect(result.data?.alert).toEqual({ title: "Si è verificato un errore", text: "La password attuale non è corretta" });
    const html = show(result.data);
    expect(html).toMatch(/role="alert"[^>]*>.*Si è verificato un errore.*La password attuale non è corretta/s);
    expect(html).toMatch(/<input[^>]*id="currentPassword"[^>]*aria-invalid="true"[^>]*aria-describedby="change-password-alert"/);
    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(true);
    expect((await services.accounts.verifyCredentials(account.email, "Nuovissima2#")).ok).toBe(false);
  });

  it("counts wrong current passwords as failed sign-ins: after 5 it stops checking, even the right one", async () => {
    const account = await newAccount();
    const { cookie } = await signIn(account.id);
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      const wrong = await change(
        { currentPassword: `Sbagliata${i}!`, password: "Nuovissima2#", confirmation: "Nuovissima2#" },
        cookie,
        ip,
      );
      expect(wrong.data?.alert?.text).toBe(MESSAGES.currentPasswordWrong);
    }
    const locked = await change(
      { currentPassword: account.password, password: "Nuovissima2#", confirmation: "Nuovissima2#" },
      cookie,
      ip,
    );
    expect(locked.status).toBe(429);
    expect(locked.data?.alert?.title).toBe(MESSAGES.passwordChangeFailed);
    expect(locked.data?.alert?.text).toMatch(/^Troppi tentativi con una password errata\. Riprova tra un minuto\.$/);
    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(true);
    // The same lock holds at the sign-in.
    expect((await services.rateLimits.checkSignIn({ email: account.email, ip: freshIp() })).ok).toBe(false);
  });

  it("changes the password, keeps this browser signed in and ends the others, with the toast 'Password aggiornata'", async () => {
    const account = await newAccount();
    const here = await signIn(account.id);
    const elsewhere = await signIn(account.id);
    const done = await change(
      { currentPassword: account.password, password: "Nuovissima2#", confirmation: "Nuovissima2#" },
      here.cookie,
    );
    expect(done.status).toBe(302);
    expect(done.location).toBe(PATH);
    expect(await toastOf(done.setCookies)).toEqual({ type: "success", title: "Password aggiornata" });

    expect(await isSignedIn(here.cookie)).toBe(true);
    expect(await isSignedIn(elsewhere.cookie)).toBe(false);
    expect((await services.accounts.verifyCredentials(account.email, account.password)).ok).toBe(false);
    expect((await services.accounts.verifyCredentials(account.email, "Nuovissima2#")).ok).toBe(true);
    expect(await eventsOf(account.id)).toContain("password_changed");
  });
});
