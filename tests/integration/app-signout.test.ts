// The account console and the apps signed in with the account (issue 28): the publisher's app
// signs in with code + PKCE through the portal's login form, as a phone would; the console lists
// it beside the browsers, 'Esci dall'app' ends it alone, and 'Esci da tutti gli altri' ends it with
// the other browsers. Ended means what the phone sees: its access token refused by the API at
// once, its refresh token refused at the token endpoint.
import { and, eq, sql } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { action as sessionsActionBare, loader as sessionsLoaderBare } from "#app/routes/profile.sessions.tsx";
import { createSessionStore } from "#server/accounts/sessions.ts";
import { customerSummary } from "#server/accounts/customer-data.ts";
import { appSignIns, oidcPayloads } from "#server/db/schema/index.ts";
import { MESSAGES } from "#shared/messages.ts";
import { apiClient, loadManifests, signInApp } from "#tests/support/api-client.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";
import { startIdentityProvider } from "#tests/support/identity.ts";
import { sessionCookieHeader, toastOf } from "#tests/support/requests.ts";
import { loaderArgs } from "#tests/support/router-context.ts";

const sessionsLoader = behindSignIn(sessionsLoaderBare);
const sessionsAction = behindSignIn(sessionsActionBare);

let database: TestDatabase;
let portal: Portal;
let op: Awaited<ReturnType<typeof startIdentityProvider>>;
let modules: Awaited<ReturnType<typeof loadManifests>>;

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  // The browsers' sessions get their provider grants from the portal's own client, as /login/ does.
  op = await startIdentityProvider(database.db);
  modules = await loadManifests(portal.origin);
});
afterAll(async () => {
  await op?.close();
  await portal?.close();
  await database?.destroy();
});

let accounts = 0;
async function newCustomer() {
  const credentials = { email: `app.${++accounts}.${Date.now()}@example.it`, password: "Segreta1!" };
  const r = await portal.services.accounts.register({ ...credentials, firstname: "Rita", lastname: "Neri" });
  if (!r.ok) throw new Error("setup: registration failed");
  return { ...r.user, ...credentials };
}

/** A browser signed in to the portal: its session cookie and the provider grant behind it. */
async function browserOf(userId: string) {
  const { code, verifier } = await op.authorize(userId);
  const { body } = await op.exchangeCode(code!, verifier);
  const rawId = await createSessionStore(database.db).create(userId, {
    accessToken: body.access_token!,
    accessTokenExpiresAt: new Date(Date.now() + 60 * 60 * 1000),
    refreshToken: body.refresh_token!,
    idToken: body.id_token!,
  });
  const [grant] = await database.db
    .select({ grantId: oidcPayloads.grantId })
    .from(oidcPayloads)
    .where(and(eq(oidcPayloads.type, "RefreshToken"), eq(oidcPayloads.id, body.refresh_token!)));
  return { cookie: await sessionCookieHeader(rawId), grantId: grant!.grantId! };
}

/** The app on a phone, signed in with the customer's password: its tokens and its grant. */
async function appOf(customer: { email: string; password: string }) {
  const tokens = await signInApp(portal.origin, customer);
  return { ...tokens, grantId: decodeJwt(tokens.access_token).gid as string };
}

/** What the API answers the app's access token (200 while its grant lives). */
const apiStatus = async (accessToken: string) => (await apiClient(modules, accessToken)("aaa", "session", "tokeninfo")).status;

/** What the token endpoint answers the app's refresh token. */
async function refresh(refreshToken: string) {
  const response = await portal.fetch("/oidc/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: "novalex-app", refresh_token: refreshToken }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const get = (cookie: string) => {
  const args = loaderArgs(portal.services, "/profile/sessions/");
  return { ...args, request: new Request(args.request.url, { headers: { cookie } }) };
};

function post(cookie: string, fields: Record<string, string>) {
  const args = loaderArgs(portal.services, "/profile/sessions/");
  const request = new Request(args.request.url, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  return { ...args, request };
}

const stillSignedIn = async (cookie: string) =>
  (await portal.services.auth.currentUser(new Request(`${portal.origin}/dashboard/`, { headers: { cookie } }))) !== null;

const providerRecordsOfGrant = async (grantId: string) =>
  (
    await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(oidcPayloads)
      .where(sql`${oidcPayloads.grantId} = ${grantId} or (${oidcPayloads.type} = 'Grant' and ${oidcPayloads.id} = ${grantId})`)
  )[0]!.n;

describe("apps signed in with the account", () => {
  it("'Esci da tutti gli altri' ends the phone's app: its access token refused at once, its refresh token revoked", async () => {
    const customer = await newCustomer();
    const here = await browserOf(customer.id);
    const otherBrowser = await browserOf(customer.id);
    const phone = await appOf(customer);
    const bystander = await appOf(await newCustomer());
    expect(await apiStatus(phone.access_token)).toBe(200);

    const before = Date.now();
    const response = (await sessionsAction(post(here.cookie, { intent: "end-others" }))) as Response;
    expect(await toastOf(portal.services.flash, response)).toMatchObject({
      type: "success",
      title: MESSAGES.otherDevicesSignedOut,
    });

    // The access token is still within its ten minutes, and refused all the same.
    expect(decodeJwt(phone.access_token).exp! * 1000).toBeGreaterThan(Date.now());
    expect(await apiStatus(phone.access_token)).toBe(401);
    expect(await refresh(phone.refresh_token)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await providerRecordsOfGrant(phone.grantId)).toBe(0);
    // The browser that pressed stays, with its provider grant; the other browser is out.
    expect(await stillSignedIn(here.cookie)).toBe(true);
    expect(await providerRecordsOfGrant(here.grantId)).toBeGreaterThan(0);
    expect(await stillSignedIn(otherBrowser.cookie)).toBe(false);
    // Another customer's app is untouched.
    expect(await apiStatus(bystander.access_token)).toBe(200);

    const { devices, apps } = await sessionsLoader(get(here.cookie));
    expect(devices.map((d) => d.current)).toEqual([true]);
    expect(apps).toEqual([]);
    const events = (await portal.services.audit.listForUser(customer.id)).filter((e) => e.event === "session_ended");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ip: "203.0.113.7", details: { sessions: 1, apps: ["novalex-app"] } });
    expect(events[0]!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("lists each app sign-in beside the browsers, and its 'Esci dall'app' ends that app only", async () => {
    const customer = await newCustomer();
    const before = Math.floor(Date.now() / 1000) * 1000;
    const here = await browserOf(customer.id);
    const phone = await appOf(customer);
    const tablet = await appOf(customer);
    // Used since: its refresh is its latest use.
    const renewed = await refresh(tablet.refresh_token);
    expect(renewed.status).toBe(200);
    const after = Date.now();

    const { devices, apps } = await sessionsLoader(get(here.cookie));
    expect(devices).toHaveLength(1);
    expect(apps.map((a) => a.id).sort()).toEqual([phone.grantId, tablet.grantId].sort());
    for (const app of apps) {
      expect(app.app).toBe("App Novalex");
      expect(app.signedInAt.getTime()).toBeGreaterThanOrEqual(before);
      expect(app.lastUsedAt.getTime()).toBeGreaterThanOrEqual(app.signedInAt.getTime());
      expect(app.lastUsedAt.getTime()).toBeLessThanOrEqual(after);
      // Where from, as for a browser: the test's phone calls from this machine.
      expect(app).toMatchObject({ place: "Rete locale", network: expect.stringMatching(/^127\.0\.0\.0\/24$|::\/48$/) });
    }

    const ended = (await sessionsAction(post(here.cookie, { intent: "end-app", app: phone.grantId }))) as Response;
    expect(ended.headers.get("location")).toBe("/profile/sessions/");
    expect(await toastOf(portal.services.flash, ended)).toMatchObject({ type: "success", title: MESSAGES.appSignedOut });
    expect(await apiStatus(phone.access_token)).toBe(401);
    expect(await refresh(phone.refresh_token)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await apiStatus(renewed.body.access_token!)).toBe(200);
    expect(await stillSignedIn(here.cookie)).toBe(true);
    expect((await sessionsLoader(get(here.cookie))).apps.map((a) => a.id)).toEqual([tablet.grantId]);
    // The ended app's place is forgotten with it; the other app's stays, as the download shows.
    const kept = await database.db.select().from(appSignIns).where(eq(appSignIns.userId, customer.id));
    expect(kept.map((row) => row.grantId)).toEqual([tablet.grantId]);
    const summary = await customerSummary(database.db, customer.id);
    expect(summary.appSignIns).toEqual([
      { lastSeenAt: kept[0]!.lastSeenAt, userAgent: kept[0]!.userAgent, networkPrefix: kept[0]!.ipPrefix },
    ]);
    const events = (await portal.services.audit.listForUser(customer.id)).filter((e) => e.event === "session_ended");
    expect(events.map((e) => e.details)).toEqual([{ apps: ["novalex-app"] }]);
  });

  it("refuses to end another account's app, or a browser's grant, named as an app", async () => {
    const customer = await newCustomer();
    const here = await browserOf(customer.id);
    const stranger = await newCustomer();
    const strangersApp = await appOf(stranger);
    const strangersBrowser = await browserOf(stranger.id);
    // The stranger's own console does list it: the id is a real app grant, of someone else.
    expect((await sessionsLoader(get(strangersBrowser.cookie))).apps.map((a) => a.id)).toEqual([strangersApp.grantId]);

    for (const app of [strangersApp.grantId, strangersBrowser.grantId, here.grantId, "non-un-id"]) {
      const refused = (await sessionsAction(post(here.cookie, { intent: "end-app", app }))) as Response;
      expect(await toastOf(portal.services.flash, refused)).toMatchObject({
        type: "error",
        title: MESSAGES.deviceAlreadySignedOut,
      });
    }
    expect(await apiStatus(strangersApp.access_token)).toBe(200);
    expect(await providerRecordsOfGrant(strangersBrowser.grantId)).toBeGreaterThan(0);
    expect(await providerRecordsOfGrant(here.grantId)).toBeGreaterThan(0);
    expect(await stillSignedIn(here.cookie)).toBe(true);
    expect(await stillSignedIn(strangersBrowser.cookie)).toBe(true);
    expect((await portal.services.audit.listForUser(customer.id)).filter((e) => e.event === "session_ended")).toEqual([]);
  });
});
