// The portal behind a proxy with TRUST_PROXY=1, as docs/operating.md deploys it: the client's
// address is the one the proxy saw, whatever X-Forwarded-For the client writes itself. Through a
// small proxy that appends to the header as Debian's nginx does with $proxy_add_x_forwarded_for,
// and through Debian's nginx itself with the shipped deploy/nginx/portal.conf (and with that usual
// line).
import { request } from "node:http";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, sessions, users } from "#server/db/schema/index.ts";
import { RATE_LIMIT_POLICIES } from "#server/security/rate-limits.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startForwardingProxy } from "#tests/support/forwarding-proxy.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";
import { NGINX_BINARY, startNginx } from "#tests/support/nginx.ts";

type Proxy = { origin: string; close: () => Promise<void> };

let database: TestDatabase;
let portal: Portal;

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database, { TRUST_PROXY: "1" });
});
afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

/**
 * A request through `proxy` from the client at `from` (an address of 127.0.0.0/8, which is all
 * this machine's), as a browser on the portal's page sends it: its Host and Origin are the
 * portal's public address, whatever port the proxy listens on.
 */
function send(
  proxy: Proxy,
  {
    from,
    method = "GET",
    path,
    headers = {},
    body,
  }: { from: string; method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; location: string | undefined; cookies: string[] }> {
  const target = new URL(path, proxy.origin);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      { method, localAddress: from, headers: { host: new URL(portal.origin).host, origin: portal.origin, ...headers } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            body: text,
            location: res.headers.location,
            cookies: res.headers["set-cookie"] ?? [],
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Addresses a client may write into X-Forwarded-For, a different one each time. */
const forged = (i: number) => [`203.0.113.${i + 1}`, `198.51.100.${i + 1}, 192.0.2.${i + 1}`, "127.0.0.1", "unknown"][i % 4]!;

const register = (proxy: Proxy, from: string, email: string, forwardedFor: string) =>
  send(proxy, {
    from,
    method: "POST",
    path: "/register/",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": forwardedFor },
    body: new URLSearchParams({ firstname: "Lia", lastname: "Neri", email, password: "Segreta1!", terms: "on" }).toString(),
  });

/**
 * A browser at `from` that signs in through `proxy` (/login/ → the provider → /accedi → the
 * provider → /oauthcb), sending `forwardedFor` as its own X-Forwarded-For with every request.
 * Resolves once /oauthcb has answered.
 */
async function signIn(proxy: Proxy, from: string, credentials: { email: string; password: string }, forwardedFor: string) {
  const jar = new Map<string, string>();
  const visit = async (path: string, form?: Record<string, string>) => {
    const answer = await send(proxy, {
      from,
      method: form ? "POST" : "GET",
      path,
      headers: {
        "x-forwarded-for": forwardedFor,
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const cookie of answer.cookies) {
      const [pair = "", ...attributes] = cookie.split(";");
      const name = pair.slice(0, pair.indexOf("=")).trim();
      const value = pair.slice(pair.indexOf("=") + 1);
      if (attributes.some((a) => /^\s*max-age=0$/i.test(a)) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return answer;
  };
  let answer = await visit("/login/");
  for (let hop = 0; hop < 10 && answer.location; hop++) {
    const next = new URL(answer.location, portal.origin);
    const path = `${next.pathname}${next.search}`;
    if (next.pathname === "/oauthcb") return visit(path);
    // The provider's login screen: the browser posts the credentials to it.
    answer = await visit(path, next.pathname.startsWith("/accedi/") ? credentials : undefined);
  }
  throw new Error(`sign-in did not reach /oauthcb: ${answer.status} ${answer.location}`);
}

/** What every proxy must guarantee: one client is one address, however it forges the header. */
function clientCannotChooseItsAddress(name: string, start: (upstream: string) => Promise<Proxy>, client: string) {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await start(portal.origin);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it(`${name}: refuses registrations past the limit from one client rotating forged X-Forwarded-For, and records its own address`, async () => {
    const { points } = RATE_LIMIT_POLICIES.registrationIp;
    const emails = Array.from({ length: points }, (_, i) => `proxy.${client}.${i}@example.it`);
    for (const [i, email] of emails.entries()) expect((await register(proxy, client, email, forged(i))).status, email).toBe(302);
    for (let i = points; i < points + 4; i++) {
      const refused = await register(proxy, client, `proxy.${client}.${i}@example.it`, forged(i));
      expect(refused.status).toBe(429);
      expect(refused.body).toContain("Troppi tentativi");
    }
    // Another client through the same proxy is not refused: the limit is the client's, not the proxy's.
    const other = client.replace(/\d+$/, (n) => String(Number(n) + 100));
    expect((await register(proxy, other, `proxy.${other}@example.it`, client)).status).toBe(302);

    const registered = await database.db
      .select({ ip: auditLog.ip })
      .from(auditLog)
      .innerJoin(users, eq(users.id, auditLog.userId))
      .where(and(eq(auditLog.event, "account_registered"), inArray(users.email, emails)));
    expect(registered.map((row) => row.ip)).toEqual(emails.map(() => client));
  });

  it(`${name}: keeps the network of a session the client signed in from, not the one it wrote`, async () => {
    const credentials = { email: `sessione.${client}@example.it`, password: "Segreta1!" };
    const registered = await portal.services.accounts.register({ firstname: "Ada", lastname: "Bruni", ...credentials });
    if (!registered.ok) throw new Error("setup: registration failed");
    expect((await signIn(proxy, client, credentials, "93.44.12.7")).status).toBe(302);
    const kept = await database.db
      .select({ ipPrefix: sessions.ipPrefix })
      .from(sessions)
      .where(eq(sessions.userId, registered.user.id));
    expect(kept).toEqual([{ ipPrefix: "127.0.0.0/24" }]);
    const [signedIn] = await database.db
      .select({ ip: auditLog.ip })
      .from(auditLog)
      .where(and(eq(auditLog.event, "sign_in_success"), eq(auditLog.userId, registered.user.id)));
    expect(signedIn?.ip).toBe(client);
  });

  it(`${name}: limits the provider's token endpoint per client, whatever X-Forwarded-For it sends`, async () => {
    const { points } = RATE_LIMIT_POLICIES.oidcTokenIp;
    const token = (i: number) =>
      send(proxy, {
        from: client,
        method: "POST",
        path: "/oidc/token",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": forged(i) },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "indovinato" }).toString(),
      });
    for (let i = 0; i < points; i++) expect((await token(i)).status).not.toBe(429);
    expect((await token(points)).status).toBe(429);
  });
}

describe("behind a proxy that appends to X-Forwarded-For (TRUST_PROXY=1)", () => {
  clientCannotChooseItsAddress("a small proxy", startForwardingProxy, "127.0.0.11");
});

// CI installs nginx (.ci/run); elsewhere the tests run where it is installed.
const withNginx = NGINX_BINARY || process.env.CI ? describe : describe.skip;

withNginx("behind Debian's nginx (TRUST_PROXY=1)", () => {
  const upstream = () => new URL(portal.origin).host;
  clientCannotChooseItsAddress("the shipped deploy/nginx/portal.conf", () => startNginx({ upstream: upstream() }), "127.0.0.12");
  clientCannotChooseItsAddress(
    "nginx appending with $proxy_add_x_forwarded_for",
    () => startNginx({ upstream: upstream(), forwardedFor: "$proxy_add_x_forwarded_for" }),
    "127.0.0.13",
  );

  describe("the shipped configuration", () => {
    let nginx: Proxy;
    beforeAll(async () => {
      nginx = await startNginx({ upstream: upstream() });
    });
    afterAll(async () => {
      await nginx?.close();
    });

    it("sets the scheme and host itself: a client's own X-Forwarded-Proto and X-Forwarded-Host are not believed", async () => {
      const discovery = await send(nginx, {
        from: "127.0.0.14",
        path: "/oidc/.well-known/openid-configuration",
        headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      });
      expect(discovery.status).toBe(200);
      const { token_endpoint } = JSON.parse(discovery.body) as { token_endpoint: string };
      expect(token_endpoint).toBe(`${portal.origin}/oidc/token`);
    });
  });
});

describe("the identity provider", () => {
  it("takes the scheme and host as Express does, from the proxy TRUST_PROXY trusts", async () => {
    // The test is the one proxy in front: its X-Forwarded-* are believed, by Express and the provider alike.
    const discovery = await portal.fetch("/oidc/.well-known/openid-configuration", {
      headers: { "x-forwarded-for": "203.0.113.50", "x-forwarded-proto": "https", "x-forwarded-host": "conti.novalex.example" },
    });
    const { token_endpoint } = (await discovery.json()) as { token_endpoint: string };
    expect(token_endpoint).toBe("https://conti.novalex.example/oidc/token");
  });
});
