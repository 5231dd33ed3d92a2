// The account console: 'Dove hai effettuato l'accesso' (/profile/sessions/) lists the account's
// sessions and ends them, with the identity provider's grant behind each; 'Scarica i tuoi dati'
// (/profile/data/) answers with the JSON file of everything held, throttled. Through the routes'
// loaders and actions as React Router calls them, over real services and a real provider.
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { action as sessionsActionBare, loader as sessionsLoaderBare } from "#app/routes/profile.sessions.tsx";
import { action as dataActionBare } from "#app/routes/profile.data.ts";
import { createSessionStore, type SessionDevice } from "#server/accounts/sessions.ts";
import { auditLog, oidcPayloads } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { MESSAGES } from "#shared/messages.ts";
import { afterStart, HOUR, MINUTE, START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startIdentityProvider } from "#tests/support/identity.ts";
import { sessionCookieHeader, toastOf } from "#tests/support/requests.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";

const sessionsLoader = behindSignIn(sessionsLoaderBare);
const sessionsAction = behindSignIn(sessionsActionBare);
const dataAction = behindSignIn(dataActionBare);

const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

let database: TestDatabase;
let op: Awaited<ReturnType<typeof startIdentityProvider>>;
let services: Services;
let now = START;
const clock = () => now;

beforeAll(async () => {
  database = await createTestDatabase();
  op = await startIdentityProvider(database.db);
  services = await createTestServices(database, testConfig({ PUBLIC_ORIGIN: op.origin }), { now: clock });
});
afterAll(async () => {
  await services.close();
  await op.close();
  await database.destroy();
});

let accounts = 0;
async function newCustomer() {
  const r = await services.accounts.register({
    firstname: "Rita",
    lastname: "Neri",
    email: `rita.${++accounts}.${Date.now()}@example.it`,
    password: "Segreta1!",
  });
  if (!r.ok) throw new Error("setup: registration failed");
  return r.user;
}

/** A session of the account signed in at the real provider from `device`: its cookie and its provider grant. */
async function signedInFrom(userId: string, device: SessionDevice) {
  const { code, verifier } = await op.authorize(userId);
  const { body } = await op.exchangeCode(code!, verifier);
  const rawId = await createSessionStore(database.db, clock).create(
    userId,
    {
      accessToken: body.access_token!,
      accessTokenExpiresAt: new Date(now.getTime() + HOUR),
      refreshToken: body.refresh_token!,
      idToken: body.id_token!,
    },
    device,
  );
  const [grant] = await database.db
    .select({ grantId: oidcPayloads.grantId })
    .from(oidcPayloads)
    .where(and(eq(oidcPayloads.type, "RefreshToken"), eq(oidcPayloads.id, body.refresh_token!)));
  return { rawId, cookie: await sessionCookieHeader(rawId), grantId: grant!.grantId! };
}

function get(url: string, cookie: string) {
  const args = loaderArgs(services, url);
  return { ...args, request: new Request(args.request.url, { headers: { cookie } }) };
}

function post(url: string, cookie: string, fields: Record<string, string>) {
  const args = loaderArgs(services, url);
  const request = new Request(args.request.url, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  return { ...args, request };
}

const providerRecordsOfGrant = async (grantId: string) =>
  (
    await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(oidcPayloads)
      .where(sql`${oidcPayloads.grantId} = ${grantId} or (${oidcPayloads.type} = 'Grant' and ${oidcPayloads.id} = ${grantId})`)
  )[0]!.n;

const stillSignedIn = async (cookie: string) =>
  (await services.auth.currentUser(new Request(`${op.origin}/dashboard/`, { headers: { cookie } }))) !== null;

describe("Dove hai effettuato l'accesso", () => {
  it("lists the account's live sessions with device, place and times, this browser's marked, no one else's", async () => {
    const user = await newCustomer();
    // Unused for longer than a session may idle: not listed.
    now = afterStart(-8 * 24 * HOUR);
    await signedInFrom(user.id, { userAgent: null, ipPrefix: null });
    now = START;
    const laptop = await signedInFrom(user.id, { userAgent: FIREFOX_WINDOWS, ipPrefix: "93.44.12.0/24" });
    now = afterStart(5 * MINUTE);
    const phone = await signedInFrom(user.id, { userAgent: SAFARI_IPHONE, ipPrefix: "8.8.8.0/24" });
    await signedInFrom((await newCustomer()).id, { userAgent: FIREFOX_WINDOWS, ipPrefix: "93.44.12.0/24" });

    now = afterStart(10 * MINUTE);
    const { devices, lastPasswordChange } = await sessionsLoader(get("/profile/sessions/", phone.cookie));
    expect(lastPasswordChange).toBeNull();
    // The phone's request just marked it seen (now); the laptop was last seen when it signed in.
    expect(devices.map(({ id: _, ...device }) => device)).toEqual([
      {
        device: "Safari su iOS · Smartphone",
        place: "Stati Uniti",
        network: "8.8.8.0/24",
        firstSeenAt: afterStart(5 * MINUTE),
        lastSeenAt: afterStart(10 * MINUTE),
        current: true,
      },
      {
        device: "Firefox su Windows · Computer",
        place: "Italia",
        network: "93.44.12.0/24",
        firstSeenAt: START,
        lastSeenAt: START,
        current: false,
      },
    ]);
    expect(await stillSignedIn(laptop.cookie)).toBe(true);
  });

  it("lists this browser first, even when another was used after it", async () => {
    now = START;
    const user = await newCustomer();
    const laptop = await signedInFrom(user.id, { userAgent: FIREFOX_WINDOWS, ipPrefix: null });
    now = afterStart(20_000);
    await signedInFrom(user.id, { userAgent: SAFARI_IPHONE, ipPrefix: null });
    // 40 s after its sign-in the laptop's visit is not written yet (once a minute): the phone's is later.
    now = afterStart(40_000);
    const { devices } = await sessionsLoader(get("/profile/sessions/", laptop.cookie));
    expect(devices.map((d) => [d.device, d.current])).toEqual([
      ["Firefox su Windows · Computer", true],
      ["Safari su iOS · Smartphone", false],
    ]);
  });

  it("'Esci da questo dispositivo' ends that session and its provider grant; another account's session cannot be named", async () => {
    now = START;
    const user = await newCustomer();
    const laptop = await signedInFrom(user.id, { userAgent: FIREFOX_WINDOWS, ipPrefix: "93.44.12.0/24" });
    const phone = await signedInFrom(user.id, { userAgent: SAFARI_IPHONE, ipPrefix: "93.44.12.0/24" });
    const stranger = await signedInFrom((await newCustomer()).id, { userAgent: FIREFOX_WINDOWS, ipPrefix: null });
    const strangerId = (await sessionsLoader(get("/profile/sessions/", stranger.cookie))).devices[0]!.id;

    // Another account's session, a malformed id and this browser's own: nothing ends.
    const { devices } = await sessionsLoader(get("/profile/sessions/", phone.cookie));
    const mine = devices.find((d) => d.current)!;
    for (const device of [strangerId, "non-un-id", mine.id]) {
      const refused = await sessionsAction(post("/profile/sessions/", phone.cookie, { intent: "end", device }));
      expect(await toastOf(services.flash, refused as Response)).toMatchObject({
        type: "error",
        title: MESSAGES.deviceAlreadySignedOut,
      });
    }
    expect(await stillSignedIn(stranger.cookie)).toBe(true);
    expect(await stillSignedIn(phone.cookie)).toBe(true);

    const laptopId = devices.find((d) => !d.current)!.id;
    const ended = (await sessionsAction(
      post("/profile/sessions/", phone.cookie, { intent: "end", device: laptopId }),
    )) as Response;
    expect(ended.headers.get("location")).toBe("/profile/sessions/");
    expect(await toastOf(services.flash, ended)).toMatchObject({ type: "success", title: MESSAGES.deviceSignedOut });
    expect(await stillSignedIn(laptop.cookie)).toBe(false);
    // The provider's grant behind it is gone too: that browser cannot sign in again silently.
    expect(await providerRecordsOfGrant(laptop.grantId)).toBe(0);
    expect(await providerRecordsOfGrant(phone.grantId)).toBeGreaterThan(0);
    expect(await stillSignedIn(phone.cookie)).toBe(true);
    const events = await services.audit.listForUser(user.id);
    expect(events.filter((e) => e.event === "session_ended").map((e) => e.ip)).toEqual(["203.0.113.7"]);
  });

  it("'Esci da tutti gli altri' ends every other session and grant of the account, this one stays", async () => {
    now = START;
    const user = await newCustomer();
    const here = await signedInFrom(user.id, { userAgent: FIREFOX_WINDOWS, ipPrefix: null });
    const others = [
      await signedInFrom(user.id, { userAgent: SAFARI_IPHONE, ipPrefix: null }),
      await signedInFrom(user.id, { userAgent: null, ipPrefix: "10.0.0.0/24" }),
    ];
    const bystander = await signedInFrom((await newCustomer()).id, { userAgent: null, ipPrefix: null });

    const response = (await sessionsAction(post("/profile/sessions/", here.cookie, { intent: "end-others" }))) as Response;
    expect(await toastOf(services.flash, response)).toMatchObject({ type: "success", title: MESSAGES.otherDevicesSignedOut });
    for (const other of others) {
      expect(await stillSignedIn(other.cookie)).toBe(false);
      expect(await providerRecordsOfGrant(other.grantId)).toBe(0);
    }
    expect(await stillSignedIn(here.cookie)).toBe(true);
    expect(await providerRecordsOfGrant(here.grantId)).toBeGreaterThan(0);
    expect(await stillSignedIn(bystander.cookie)).toBe(true);
    const { devices } = await sessionsLoader(get("/profile/sessions/", here.cookie));
    expect(devices.map((d) => d.current)).toEqual([true]);
  });

  it("says when a password change last ended the other sessions", async () => {
    now = afterStart(HOUR);
    const user = await newCustomer();
    const here = await signedInFrom(user.id, { userAgent: FIREFOX_WINDOWS, ipPrefix: null });
    const other = await signedInFrom(user.id, { userAgent: SAFARI_IPHONE, ipPrefix: null });
    const changed = await services.passwordChanges.change({
      user: { id: user.id, email: user.email },
      keep: { sessionId: here.rawId },
      currentPassword: "Segreta1!",
      newPassword: "Nuova2026!",
      ip: "203.0.113.7",
    });
    expect(changed.ok).toBe(true);
    const { devices, lastPasswordChange } = await sessionsLoader(get("/profile/sessions/", here.cookie));
    expect(lastPasswordChange).toEqual(afterStart(HOUR));
    expect(devices).toHaveLength(1);
    expect(await stillSignedIn(other.cookie)).toBe(false);
  });
});

describe("Scarica i tuoi dati", () => {
  it("answers with a JSON file of what is held about the customer, without ids, tokens or hashes", async () => {
    now = START;
    const user = await newCustomer();
    const here = await signedInFrom(user.id, { userAgent: FIREFOX_WINDOWS, ipPrefix: "93.44.12.0/24" });
    const response = (await dataAction(post("/profile/data/", here.cookie, {}))) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="novalex-dati-2026-11-23.json"');
    const text = await response.text();
    const data = JSON.parse(text) as Record<string, unknown>;
    expect(data).toMatchObject({
      format: "novalex-portal-customer-export/1",
      exportedAt: START.toISOString(),
      profile: { email: user.email, firstname: "Rita", acceptMarketing: false },
      portalSessions: [{ userAgent: FIREFOX_WINDOWS, networkPrefix: "93.44.12.0/24" }],
      orders: [],
      entitlements: [],
      mails: [],
    });
    for (const secret of ["passwordHash", "idHash", "refreshToken", "accessToken", here.rawId])
      expect(text).not.toContain(secret);
    const events = await services.audit.listForUser(user.id);
    expect(events.map((e) => e.event)).toContain("data_exported");
  });

  it("gives three downloads an hour, however many are asked at once; the next goes back with a toast", async () => {
    now = START;
    const user = await newCustomer();
    const here = await signedInFrom(user.id, { userAgent: null, ipPrefix: null });
    const answers = (await Promise.all(
      Array.from({ length: 5 }, () => dataAction(post("/profile/data/", here.cookie, {}))),
    )) as Response[];
    expect(answers.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = answers.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(2);
    for (const response of refused) {
      expect(response.headers.get("location")).toBe("/profile/preferences/");
      expect(await toastOf(services.flash, response)).toMatchObject({ type: "error", title: MESSAGES.dataExportTooMany });
    }
    const downloads = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(auditLog)
      .where(and(eq(auditLog.userId, user.id), eq(auditLog.event, "data_exported")));
    expect(downloads[0]!.n).toBe(3);
  });
});
