// Full sign-ins per second: the redirect to the identity provider, the login screen's post
// (an argon2id verification), the authorization code, the token exchange and the portal session.
import { performance } from "node:perf_hooks";

type Jar = Map<string, string>;

function store(jar: Jar, response: Response) {
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(";")[0]!;
    const eq = pair.indexOf("=");
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}
const cookieHeader = (jar: Jar) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

/** Follows redirects by hand (cookies change at every hop) until a page answers. */
async function follow(
  origin: string,
  jar: Jar,
  url: string,
  init: RequestInit = {},
): Promise<{ url: string; response: Response }> {
  let response = await fetch(new URL(url, origin), {
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
    response = await fetch(url, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
  }
  return { url, response };
}

async function register(origin: string, email: string, password: string) {
  const response = await fetch(`${origin}/register/`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ firstname: "Bench", lastname: "Mark", email, password, terms: "on" }),
  });
  if (response.status !== 302) throw new Error(`registration for the sign-in benchmark failed with ${response.status}`);
}

async function signInOnce(origin: string, email: string, password: string): Promise<boolean> {
  return (await signIn(origin, email, password)) !== null;
}

/** One complete sign-in; the browser's cookies after it, or null when it failed. */
async function signIn(origin: string, email: string, password: string): Promise<Jar | null> {
  const jar: Jar = new Map();
  const screen = await follow(origin, jar, "/login/");
  await screen.response.arrayBuffer();
  if (!/\/accedi\/[^/]+$/.test(new URL(screen.url).pathname)) return null;
  const done = await follow(origin, jar, new URL(screen.url).pathname, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ email, password }),
  });
  await done.response.arrayBuffer();
  return [...jar.keys()].some((name) => name.endsWith("portal_session")) ? jar : null;
}

/**
 * The Cookie header of a new legal professional who has completed first access (the first
 * profession offered after student and professor, and the first interest), for loading the
 * signed-in dashboard.
 */
export async function signedInProfessional(origin: string): Promise<string> {
  const email = `bench.dashboard.${Date.now()}@example.it`;
  const password = "Benchmark1!";
  await register(origin, email, password);
  const jar = await signIn(origin, email, password);
  if (!jar) throw new Error("the dashboard benchmark could not sign in");
  const values = (html: string, name: string) =>
    [...html.matchAll(new RegExp(`name="${name}" value="([^"]+)"`, "g"))].map((m) => m[1]!);
  const professions = values(await (await follow(origin, jar, "/profilo/primoaccesso/")).response.text(), "profession");
  const other = professions[2];
  if (!other) throw new Error("first access offers fewer than three professions");
  const details = await follow(origin, jar, `/profilo/primoaccesso/?profession=${other}`);
  const [interest] = values(await details.response.text(), "interests");
  if (!interest) throw new Error("first access offers no interests");
  const done = await follow(origin, jar, "/profilo/primoaccesso/", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ profession: other, interests: interest }),
  });
  await done.response.arrayBuffer();
  if (new URL(done.url, origin).pathname !== "/dashboard/") throw new Error(`first access ended on ${done.url}`);
  return cookieHeader(jar);
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
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { signIns: latencies.length, perSecond: latencies.length / seconds, p50: pick(0.5), p99: pick(0.99), failures };
}
