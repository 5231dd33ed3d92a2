// Full sign-ins per second: the redirect to the identity provider, the login screen's post
// (an argon2id verification), the authorization code, the token exchange and the portal session;
// and the signed-in customer and API token the load of signed-in pages and API calls carries.
// Every request goes through `http`, the global fetch by default: the load-and-faults script
// passes a client of its own (a virtual customer's connections, their address, their timings).
import { createHash, randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { percentiles } from "./figures.ts";

/** The fetch that carries a browser's requests (always called with `redirect: "manual"`). */
export type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A browser's cookies, by name. */
type Jar = Map<string, string>;

function store(jar: Jar, response: Response) {
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(";")[0]!;
    const eq = pair.indexOf("=");
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}
export const cookieHeader = (jar: Jar) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

/**
 * Follows redirects by hand (cookies change at every hop) until a page answers, or until the
 * next address starts with `until` (an app's redirect URI, which nothing here serves).
 */
async function follow(
  origin: string,
  jar: Jar,
  url: string,
  init: RequestInit = {},
  until?: string,
  http: Fetch = fetch,
): Promise<{ url: string; response: Response }> {
  let response = await http(new URL(url, origin), {
    ...init,
    redirect: "manual",
    headers: { ...init.headers, cookie: cookieHeader(jar) },
  });
  for (let hops = 0; hops < 10; hops++) {
    store(jar, response);
    const location = response.headers.get("location");
    if (!location) break;
    await response.arrayBuffer();
    url = new URL(location, url.startsWith("http") ? url : new URL(url, origin)).toString();
    if (until && url.startsWith(until)) break;
    response = await http(url, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
  }
  return { url, response };
}

async function register(origin: string, email: string, password: string, http: Fetch = fetch) {
  const response = await http(`${origin}/register/`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ firstname: "Bench", lastname: "Mark", email, password, terms: "on" }),
  });
  await response.arrayBuffer();
  if (response.status !== 302) throw new Error(`registration for the sign-in benchmark failed with ${response.status}`);
}

async function signInOnce(origin: string, email: string, password: string): Promise<boolean> {
  return (await signIn(origin, email, password)) !== null;
}

/**
 * From `start` to the login screen, whose form is posted with the credentials; where the
 * redirects then end (see `follow`), or null when no login screen came.
 */
async function logIn(
  origin: string,
  jar: Jar,
  start: string,
  email: string,
  password: string,
  until?: string,
  http: Fetch = fetch,
) {
  const screen = await follow(origin, jar, start, {}, undefined, http);
  await screen.response.arrayBuffer();
  if (!/\/accedi\/[^/]+$/.test(new URL(screen.url).pathname)) return null;
  const done = await follow(
    origin,
    jar,
    new URL(screen.url).pathname,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams({ email, password }),
    },
    until,
    http,
  );
  // Stopped at `until`, the last answer was already read.
  if (!done.response.bodyUsed) await done.response.arrayBuffer();
  return done;
}

/** One complete sign-in; the browser's cookies after it, or null when it failed. */
export async function signIn(origin: string, email: string, password: string, http: Fetch = fetch): Promise<Jar | null> {
  const jar: Jar = new Map();
  if (!(await logIn(origin, jar, "/login/", email, password, undefined, http))) return null;
  return [...jar.keys()].some((name) => name.endsWith("portal_session")) ? jar : null;
}

let professionals = 0;

/**
 * The Cookie header of a new legal professional who has completed first access (the first
 * profession offered after student and professor, and the first interest), for loading the
 * signed-in dashboard.
 */
export async function signedInProfessional(
  origin: string,
  http: Fetch = fetch,
  email = `bench.dashboard.${Date.now()}.${++professionals}@example.it`,
): Promise<{ cookie: string; email: string; password: string }> {
  const password = "Benchmark1!";
  await register(origin, email, password, http);
  const jar = await signIn(origin, email, password, http);
  if (!jar) throw new Error("the dashboard benchmark could not sign in");
  const values = (html: string, name: string) =>
    [...html.matchAll(new RegExp(`name="${name}" value="([^"]+)"`, "g"))].map((m) => m[1]!);
  const professions = values(
    await (await follow(origin, jar, "/profilo/primoaccesso/", {}, undefined, http)).response.text(),
    "profession",
  );
  const other = professions[2];
  if (!other) throw new Error("first access offers fewer than three professions");
  const details = await follow(origin, jar, `/profilo/primoaccesso/?profession=${other}`, {}, undefined, http);
  const [interest] = values(await details.response.text(), "interests");
  if (!interest) throw new Error("first access offers no interests");
  const done = await follow(
    origin,
    jar,
    "/profilo/primoaccesso/",
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams({ profession: other, interests: interest }),
    },
    undefined,
    http,
  );
  await done.response.arrayBuffer();
  if (new URL(done.url, origin).pathname !== "/dashboard/") throw new Error(`first access ended on ${done.url}`);
  return { cookie: cookieHeader(jar), email, password };
}

/** The publisher's app (docs/api.md): a public client signing in with code + PKCE. */
const APP_CLIENT_ID = "novalex-app";
const APP_REDIRECT_URI = "http://127.0.0.1/oauth/callback";

/** An access token for the JSON API (ten minutes), obtained as the app does, through the login form. */
export async function apiAccessToken(origin: string, email: string, password: string): Promise<string> {
  const jar: Jar = new Map();
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: APP_CLIENT_ID,
    response_type: "code",
    scope: "openid api",
    redirect_uri: APP_REDIRECT_URI,
    state: "bench",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
  const done = await logIn(origin, jar, `/oidc/auth?${query}`, email, password, APP_REDIRECT_URI);
  const code = done?.url.startsWith(APP_REDIRECT_URI) ? new URL(done.url).searchParams.get("code") : null;
  if (!code) throw new Error(`the app's sign-in ended on ${done?.url ?? "no login screen"}`);
  const response = await fetch(`${origin}/oidc/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: APP_CLIENT_ID,
      code,
      code_verifier: verifier,
      redirect_uri: APP_REDIRECT_URI,
    }),
  });
  const token = (await response.json()) as { access_token?: string };
  if (!token.access_token) throw new Error(`the app's token request answered ${response.status}`);
  return token.access_token;
}

export async function measureSignIns(origin: string, seconds: number, concurrency: number) {
  const email = `bench.${Date.now()}@example.it`;
  const password = "Benchmark1!";
  await register(origin, email, password);
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        if (await signInOnce(origin, email, password)) latencies.push(performance.now() - started);
        else failures++;
      }
    }),
  );
  return { signIns: latencies.length, perSecond: latencies.length / seconds, ...percentiles(latencies), failures };
}
