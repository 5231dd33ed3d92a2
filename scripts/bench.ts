// `npm run bench`: throughput and page weight of the production build.
//
// Builds the portal, then for each database (the embedded PGlite always; PostgreSQL too when
// DATABASE_URL is set: the bench creates a database of its own on that server and drops it
// afterwards) starts `node server/main.ts` (NODE_ENV=production) on a free port with a fresh
// DATA_DIR, waits for /readyz, signs in a legal professional (first access done: every section of
// the dashboard shows) and:
//   1. warms up each URL (3 s each), then drives each with autocannon and prints requests/s, p50
//      and p99 latency and the ratios of both to the route with no loader (/attivaprodotto/, the
//      framework floor; the root loader still runs). Each URL's load comes in TURNS parts, the URLs
//      taking turns, so that a machine that runs faster or slower for a minute (this one varies by
//      a third) weighs on every URL alike; a URL's figures are those of all its parts together.
//      Each part begins with RAMP_SECONDS not counted: while autocannon's connections open, their
//      first requests wait up to a second whatever the page (requests/s count the answers after it,
//      latencies those of the requests sent after it). /healthz is the plain Express floor.
//      Signed-in pages (/dashboard/, /profile/, /my-products/, the checkout page of an open order,
//      and the subscription page /my-products/abbonamento/ of a second customer, who holds the EDU
//      subscription) carry the session cookie: the session is checked on every request.
//      Requests carry no Accept-Encoding, so compression is not part of the measurement.
//      Two calls of the JSON API are loaded the same way, on every database: an anonymous reference
//      list (GET /api/v1/pim/universita/getall/) and a signed-in customer's orders
//      (GET /api/v1/order/order/myorders/?limit=2, with a bearer token the app's code + PKCE
//      sign-in gave: its signature, grant and account are checked on every call). Figures only,
//      no target.
//      Targets, on every database: landing page ≥ 0.5 × the no-loader route; every signed-in page
//      ≥ 0.5 × the no-loader route (the dashboard ≥ 0.6 ×) with a p99 ≤ 3 × the no-loader route's.
//   2. (PGlite) weighs each public page: its HTML and the client JavaScript it loads (modulepreload
//      links, imports of the inline module scripts, the one kept as text until the first paint
//      included, and the static imports of those modules,
//      recursively), each gzipped with zlib's default level as the compression middleware would.
//      1 KB = 1000 bytes. Budget: client JavaScript ≤ 120 KB gzip per public page.
//   3. (PGlite) complete sign-ins per second.
//   4. After the load, a few whole purchases in a row (sandbox card): p50/p99 of 'Completa
//      l'acquisto' and of the return to 'Ordine confermato'. (PGlite) The checkout page's client
//      JavaScript, budget 180 KB gzip.
//   5. (PGlite) What the metrics cost: one server with two doors, one with METRICS_TOKEN's
//      counting and /metrics, one without (scripts/bench/metrics-doors.ts), started
//      BENCH_METRICS_PROCESSES times. In each, the main thread's CPU time per dashboard at
//      saturation through the door without (BENCH_DURATION / 2 s); then BENCH_METRICS_PAIRS pairs
//      of dashboards one at a time, the doors taking turns, each timed on the main thread with the
//      heap's growth across it, /metrics scraped every SCRAPE_EVERY pairs. What the metrics add
//      (the pairs' trimmed mean difference, the collector's time for what they allocate, the
//      scrapes' time every 15 s) against the saturated time per request is the process's cost
//      (scripts/bench/metrics-cost.ts says why so); the figure is the processes' mean, with a
//      95 % interval from their spread. Budget: < 3 %.
// Exits 1 when any request failed (non-2xx, socket error, timeout) or a target or budget is missed.
//
// Environment:
//   BENCH_DURATION      seconds of load per URL (default 10)
//   BENCH_CONNECTIONS   concurrent connections (default 20)
//   DATABASE_URL        a PostgreSQL server (any database on it) to measure on as well
//   BENCH_CPU_PROF      a directory: the server writes a V8 CPU profile there (node --cpu-prof)
//   BENCH_METRICS_ONLY  true: the build and part 5 only
//   BENCH_METRICS_PROCESSES  servers part 5 measures (default 4, at least 3)
//   BENCH_METRICS_PAIRS pairs of requests of part 5 in each (default 1000)
import autocannon from "autocannon";
import type { Result } from "autocannon";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import pg from "pg";
import { measurePurchases, openCheckout, PURCHASES, subscribeToEdu } from "./bench/checkout.ts";
import { apiAccessToken, measureSignIns, signedInProfessional } from "./bench/sign-in.ts";
import { mean, percentiles, table } from "./bench/figures.ts";
import { metricsCost, metricsCostOverProcesses, SLOW_TIMES, type TimedRequest } from "./bench/metrics-cost.ts";
import {
  freePort,
  mainThreadCpuNs,
  measuredProductionEnv,
  seedDemoCatalogue,
  ServerLog,
  waitUntilReady,
} from "./bench/server.ts";

/** Measured on every database, with the checkout page of an open order (its address is the order's). */
const MEASURED_URLS = ["/attivaprodotto/", "/landingpage/landing/", "/dashboard/", "/profile/", "/my-products/"];
/** The EDU subscription's page, loaded with the cookie of a customer who holds it. */
const SUBSCRIPTION = "/my-products/abbonamento/";
/** The JSON API: an anonymous reference list, and a signed-in customer's orders (with a bearer token). */
const API_LIST = "/api/v1/pim/universita/getall/";
const API_MY_ORDERS = "/api/v1/order/order/myorders/?limit=2";
const API_URLS = [API_LIST, API_MY_ORDERS];
/** Measured on PGlite only: their data is editorial content, cached in memory. */
const PUBLIC_URLS = ["/edu/", "/help-center/", "/healthz"];
/** Loaded with a signed-in customer's cookie (a legal professional: every section shows). */
const SIGNED_IN_URLS = new Set(["/dashboard/", "/profile/", "/my-products/"]);
const isSignedIn = (url: string) => SIGNED_IN_URLS.has(url) || url.startsWith("/checkout/");
/**
 * What a signed-in request carries: the portal's session cookie (the subscriber's on the
 * subscription page), or the API's bearer token.
 */
type Credentials = { cookie: string; subscriber: string; bearer: string };
const headersOf = (url: string, { cookie, subscriber, bearer }: Credentials): Record<string, string> =>
  url === API_MY_ORDERS
    ? { authorization: `Bearer ${bearer}` }
    : url === SUBSCRIPTION
      ? { cookie: subscriber }
      : isSignedIn(url)
        ? { cookie }
        : {};
const LANDING = "/landingpage/landing/";
const NO_LOADER = "/attivaprodotto/";
const PUBLIC_PAGES = ["/landingpage/landing/", "/landingpage/edu/", "/universita", "/edu/", "/help-center/", "/attivaprodotto/"];
const NOT_FOUND_PAGE = "/does-not-exist";
const DASHBOARD = "/dashboard/";
const JS_BUDGET_KB = 120;
/** The checkout may load more (its forms), up to the public budget + 60 KB, before Stripe.js. */
const CHECKOUT_JS_BUDGET_KB = JS_BUDGET_KB + 60;
const TARGET_RATIO = 0.5;
const DASHBOARD_TARGET_RATIO = 0.6;
const TARGET_P99_RATIO = 3;
const SIGN_IN_CONCURRENCY = 4;
/** Parts of each URL's load, the URLs taking turns (see measure). */
const TURNS = 3;
/** The start of each part, not counted: connections opening (see the header). */
const RAMP_SECONDS = 1;
const WARMUP_SECONDS = 3;
const READY_TIMEOUT_MS = 120_000;
/** The metrics' budget: they cost the dashboard less than 3 % of its throughput (see measureMetricsCost). */
const METRICS_MAX_COST = 0.03;
/** Servers measured one after the other, and pairs of requests in each (see measureMetricsCost). */
const METRICS_PROCESSES = Math.max(3, positiveNumber("BENCH_METRICS_PROCESSES", 4));
const METRICS_PAIRS = positiveNumber("BENCH_METRICS_PAIRS", 1000);
/**
 * How often the bench scrapes /metrics while it times the pairs, in pairs: about as often, for the
 * requests made, as Prometheus would at the load's twice the peak (16 requests/s an instance,
 * docs/performance.md), so that the scrapes' after-effects weigh on the pairs. What the scrapes
 * cost the throughput is their time every 15 s whatever the rate (scripts/bench/metrics-cost.ts).
 */
const SCRAPE_EVERY = 240;

const duration = positiveNumber("BENCH_DURATION", 10);
const connections = positiveNumber("BENCH_CONNECTIONS", 20);
const metricsOnly = process.env.BENCH_METRICS_ONLY === "true";
const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);

const failures: string[] = [];
/** The servers running, stopped at the end or on a signal. */
const servers = new Set<BenchServer>();
let running: { stop(): void } | undefined;
let interrupted = false;

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

const kb = (bytes: number) => (bytes / 1000).toFixed(1);
const gzipSize = (body: string | Uint8Array) => gzipSync(body).length;

// ── build and server ─────────────────────────────────────────────────────────

function run(command: string, args: string[]) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`${path.basename(args[0] ?? command)} ${args.slice(1).join(" ")} failed (${signal ?? `exit ${code}`})`),
          ),
    );
  });
}

/** A production server the bench started, with a DATA_DIR of its own. */
type BenchServer = {
  origin: string;
  /** The origin its sign-ins and cookies are for. */
  publicOrigin: string;
  pid: number;
  stop(): Promise<void>;
};

/**
 * Starts a production server (`settings` add to its environment; `entry`: the script it runs) and
 * waits until it is ready; its output (warn and above) is tallied by message for the report (ServerLog).
 */
async function startServer(
  name: string,
  databaseUrl: string,
  settings: NodeJS.ProcessEnv = {},
  entry = "server/main.ts",
): Promise<BenchServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  console.log(`\nStarting the production server on ${origin} (${name})…`);
  const dataDir = mkdtempSync(path.join(tmpdir(), "portal-bench-"));
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const env = measuredProductionEnv({
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    ...settings,
  });
  await seedDemoCatalogue(env);
  const child = spawn(process.execPath, [...profile, entry], { stdio: ["ignore", "pipe", "pipe"], env });
  serverLog.attach(child);
  let ready = false;
  let stopping: Promise<void> | undefined;
  child.on("exit", (code, signal) => {
    if (ready && !stopping) failures.push(`the server stopped on its own (${signal ?? `exit ${code}`}; its output is above)`);
  });
  /** SIGTERM (SIGKILL after 15 s), then removes the temporary DATA_DIR. */
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && !child.signalCode) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dataDir, { recursive: true, force: true });
      servers.delete(server);
    })());
  const server: BenchServer = { origin, publicOrigin: `http://localhost:${port}`, pid: child.pid!, stop };
  servers.add(server);
  const started = Date.now();
  await waitUntilReady(origin, child, READY_TIMEOUT_MS);
  ready = true;
  console.log(`ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return server;
}

const serverLog = new ServerLog();

/** Stops the load under way and every server. */
async function stopServers() {
  running?.stop();
  await Promise.all([...servers].map((server) => server.stop()));
}

// ── load ─────────────────────────────────────────────────────────────────────

/** Drives one URL. */
async function load(
  url: string,
  seconds: number,
  headers: Record<string, string> = {},
  onResponse?: OnResponse,
): Promise<Result> {
  if (interrupted) throw new Error("interrupted");
  const instance = autocannon({ url, connections, duration: seconds, headers });
  const start = performance.now();
  if (onResponse)
    instance.on("response", (_client, _status, _bytes, latency) => onResponse((performance.now() - start) / 1000, latency));
  running = instance;
  try {
    return await instance;
  } finally {
    running = undefined;
  }
}

/** A response: when it came (seconds into the run) and its latency (ms). */
type OnResponse = (at: number, latency: number) => void;

function checkResponses(label: string, result: Result) {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0) return;
  const codes = Object.entries(result.statusCodeStats)
    .filter(([code]) => !code.startsWith("2"))
    .map(([code, { count }]) => `${count}× ${code}`);
  failures.push(`${label}: ${[...codes, `${result.errors} errors`, `${result.timeouts} timeouts`].join(", ")}`);
}

/** A URL's figures over all its parts. */
type Measured = { url: string; perSecond: number; p50: number; p99: number; non2xx: number; failed: number };

/** Loads each URL in turns (see TURNS); the signed-in ones with the customer's cookie or API token. */
async function measure(origin: string, urls: readonly string[], credentials: Credentials): Promise<Measured[]> {
  // Warming every URL before measuring any lets V8 optimise the rendering code they share, so the
  // first URL measured is not penalised.
  console.log(`\nWarm-up: ${WARMUP_SECONDS} s per URL`);
  for (const url of urls) {
    checkResponses(`${url} (warm-up)`, await load(origin + url, WARMUP_SECONDS, headersOf(url, credentials)));
  }

  const signedIn = urls.filter((url) => Object.keys(headersOf(url, credentials)).length > 0);
  console.log(
    `Load: ${connections} connections, ${duration} s per URL in ${TURNS} turns of ${duration / TURNS} s after ${RAMP_SECONDS} s not counted (${signedIn.join(", ")} signed in)\n`,
  );
  const runs = urls.map((url) => ({ url, latencies: [] as number[], answers: 0, non2xx: 0, failed: 0 }));
  for (let turn = 1; turn <= TURNS; turn++) {
    process.stdout.write(`  turn ${turn}/${TURNS}:`);
    for (const run of runs) {
      const counted: OnResponse = (at, latency) => {
        if (at < RAMP_SECONDS) return;
        run.answers++;
        if (at - latency / 1000 >= RAMP_SECONDS) run.latencies.push(latency);
      };
      const result = await load(origin + run.url, RAMP_SECONDS + duration / TURNS, headersOf(run.url, credentials), counted);
      checkResponses(run.url, result);
      run.non2xx += result.non2xx;
      run.failed += result.errors + result.timeouts;
      process.stdout.write(".");
    }
    process.stdout.write("\n");
  }
  return runs.map(({ url, latencies, answers, non2xx, failed }) => ({
    url,
    perSecond: answers / duration,
    ...percentiles(latencies),
    non2xx,
    failed,
  }));
}

/** The table of one database's figures, and its targets checked. */
function report(database: string, measured: Measured[]) {
  const floor = measured.find((m) => m.url === NO_LOADER)!;
  const ratio = (url: string) => measured.find((m) => m.url === url)!.perSecond / floor.perSecond;
  const p99Ratio = (url: string) => measured.find((m) => m.url === url)!.p99 / Math.max(1, floor.p99);
  console.log(`\n${database}`);
  table(
    ["URL", "req/s", "p50 ms", "p99 ms", "× no-loader", "p99 × no-loader", "non-2xx/errors"],
    measured.map(({ url, perSecond, p50, p99, non2xx, failed }) => [
      url,
      perSecond.toFixed(0),
      p50.toFixed(0),
      p99.toFixed(0),
      ratio(url).toFixed(2),
      p99Ratio(url).toFixed(1),
      `${non2xx}/${failed}`,
    ]),
  );
  const targets = [
    {
      label: `${database}: landing page ≥ ${TARGET_RATIO} × no-loader route`,
      value: ratio(LANDING),
      pass: ratio(LANDING) >= TARGET_RATIO,
    },
    // Every signed-in page: its throughput, and its p99 against the no-loader route's.
    ...measured
      .filter(({ url }) => url === SUBSCRIPTION || isSignedIn(url))
      .flatMap(({ url }) => {
        const name = url.startsWith("/checkout/") ? "checkout page" : url;
        const minimum = url === DASHBOARD ? DASHBOARD_TARGET_RATIO : TARGET_RATIO;
        return [
          {
            label: `${database}: signed-in ${name} ≥ ${minimum} × no-loader route`,
            value: ratio(url),
            pass: ratio(url) >= minimum,
          },
          {
            label: `${database}: signed-in ${name} p99 ≤ ${TARGET_P99_RATIO} × no-loader route's`,
            value: p99Ratio(url),
            pass: p99Ratio(url) <= TARGET_P99_RATIO,
          },
        ];
      }),
  ];
  console.log();
  for (const { label, value, pass } of targets) {
    console.log(`${label}: ${pass ? "PASS" : "FAIL"} (${value.toFixed(2)})`);
    if (!pass) failures.push(`${label}: ${value.toFixed(2)}`);
  }
}

// ── page weight ──────────────────────────────────────────────────────────────

// A module script, or the one the page keeps as text until its first paint (app/entry.server.tsx).
const MODULE_SCRIPT = /<script\b[^>]*\b(?:type=["']?module["']?|id=["']?avvio-script["']?)[^>]*>([\s\S]*?)<\/script>/gi;
const TAG = /<(?:link|script)\b[^>]*>/gi;
// `import "x"`, `import {a} from "x"`, `export * from "x"`, minified `from"x"`, and (inline only) `import("x")`.
const STATIC_IMPORT = /(?:\bimport|\bfrom)\s*["']([^"']+)["']/g;
// Between built chunks Vite writes relative specifiers (`from"./x.js"`); this skips look-alikes in strings.
const CHUNK_IMPORT = /(?:\bimport|\bfrom)\s*["'](\.\.?\/[^"']+\.js)["']/g;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

const attr = (tag: string, name: string) => new RegExp(`\\b${name}=["']?([^"'\\s>]+)`, "i").exec(tag)?.[1];
const specifiers = (code: string, pattern: RegExp) => [...code.matchAll(pattern)].map((m) => m[1]!);

/** The /assets/*.js modules a page loads at start-up: its entry points and their static imports. */
async function pageScripts(origin: string, pageUrl: string, html: string, cache: Map<string, Uint8Array>) {
  const entries: string[] = [];
  for (const tag of html.match(TAG) ?? []) {
    const href = attr(tag, "href");
    const src = attr(tag, "src");
    if (/^<link/i.test(tag) && /\brel=["']?modulepreload/i.test(tag) && href) entries.push(href);
    if (/^<script/i.test(tag) && src) entries.push(src);
  }
  for (const [, code] of html.matchAll(MODULE_SCRIPT)) {
    entries.push(...specifiers(code!, STATIC_IMPORT), ...specifiers(code!, DYNAMIC_IMPORT));
  }

  const seen = new Set<string>();
  const queue = entries.map((spec) => new URL(spec, origin + pageUrl).href);
  while (queue.length) {
    const url = queue.shift()!;
    const { pathname } = new URL(url);
    if (seen.has(url) || !url.startsWith(origin) || !pathname.startsWith("/assets/") || !pathname.endsWith(".js")) continue;
    seen.add(url);
    let body = cache.get(url);
    if (!body) {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${pageUrl} loads ${pathname}, which answers ${res.status}`);
      body = new Uint8Array(await res.arrayBuffer());
      cache.set(url, body);
    }
    const code = new TextDecoder().decode(body);
    queue.push(...specifiers(code, CHUNK_IMPORT).map((spec) => new URL(spec, url).href));
  }
  return [...seen].map((url) => cache.get(url)!);
}

async function pageWeights(origin: string, checkout: { url: string; cookie: string }) {
  console.log(`\nPage weight (gzip, 1 KB = 1000 bytes)\n`);
  const cache = new Map<string, Uint8Array>();
  const rows: string[][] = [];
  let overBudget = false;
  for (const page of [...PUBLIC_PAGES, NOT_FOUND_PAGE]) {
    const expected = page === NOT_FOUND_PAGE ? 404 : 200;
    const res = await fetch(origin + page, { redirect: "manual" });
    const html = await res.text();
    if (res.status !== expected) failures.push(`${page} answered ${res.status}, expected ${expected}`);
    const scripts = await pageScripts(origin, page, html, cache);
    const js = scripts.reduce((sum, body) => sum + gzipSize(body), 0);
    const over = js > JS_BUDGET_KB * 1000;
    overBudget ||= over;
    rows.push([page, String(res.status), kb(gzipSize(html)), String(scripts.length), kb(js), over ? "over budget" : "ok"]);
  }
  table(["page", "status", "HTML KB", "JS files", "JS KB", `≤ ${JS_BUDGET_KB} KB`], rows);
  console.log(`\nclient JavaScript ≤ ${JS_BUDGET_KB} KB gzip per public page: ${overBudget ? "FAIL" : "PASS"}`);
  if (overBudget) failures.push(`a public page loads more than ${JS_BUDGET_KB} KB of gzipped JavaScript`);

  const res = await fetch(origin + checkout.url, { headers: { cookie: checkout.cookie } });
  const html = await res.text();
  const js = (await pageScripts(origin, checkout.url, html, cache)).reduce((sum, body) => sum + gzipSize(body), 0);
  const pass = res.status === 200 && js <= CHECKOUT_JS_BUDGET_KB * 1000;
  console.log(
    `checkout page (signed in): HTML ${kb(gzipSize(html))} KB, client JavaScript ${kb(js)} KB ≤ ${CHECKOUT_JS_BUDGET_KB} KB: ${pass ? "PASS" : "FAIL"}`,
  );
  if (!pass) failures.push(`the checkout page answered ${res.status} with ${kb(js)} KB of gzipped JavaScript`);
  console.log("(That no public page needs JavaScript to be read or navigated is verified by the browser tests, not here.)");
}

// ── main ─────────────────────────────────────────────────────────────────────

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the server`);
    void stopServers().finally(() => process.exit(130));
  });
}

/** Complete sign-ins through the identity provider (the public origin is localhost:<port>). */
async function signIns(publicOrigin: string) {
  const seconds = Math.min(duration, 10);
  console.log(`\nSign-ins: ${SIGN_IN_CONCURRENCY} browsers, ${seconds} s, each the full redirect flow with an argon2id check`);
  const result = await measureSignIns(publicOrigin, seconds, SIGN_IN_CONCURRENCY);
  console.log(
    `  ${result.signIns} sign-ins, ${result.perSecond.toFixed(1)}/s, p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms, ${result.failures} failed`,
  );
  if (result.failures > 0 || result.signIns === 0) failures.push(`${result.failures} sign-ins failed`);
}

/** Whole purchases with the sandbox's good card, one after the other (docs/payments.md, "Payments"). */
async function purchases(publicOrigin: string, cookie: string) {
  const { submit, confirmation } = await measurePurchases(publicOrigin, cookie);
  console.log(
    `\nPurchases: ${PURCHASES} in a row (sandbox card, paper book with shipping)\n` +
      `  'Completa l'acquisto' (checks, card set up and charged, payment written): p50 ${submit.p50.toFixed(0)} ms, p99 ${submit.p99.toFixed(0)} ms\n` +
      `  return to 'Ordine confermato': p50 ${confirmation.p50.toFixed(0)} ms, p99 ${confirmation.p99.toFixed(0)} ms`,
  );
}

/** A database of the bench's own on the PostgreSQL server of DATABASE_URL, dropped by `drop()`. */
async function createBenchDatabase(serverUrl: string) {
  const name = `portal_bench_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** One database: a server of its own, the load, the figures; on PGlite the weights and sign-ins too. */
async function benchOn(database: "PGlite" | "PostgreSQL", databaseUrl: string) {
  const server = await startServer(database, databaseUrl);
  const { origin, publicOrigin } = server;
  try {
    // Signed-in pages need the public origin: the session cookie is set for it by the sign-in.
    const { cookie, email, password } = await signedInProfessional(publicOrigin);
    const checkout = await openCheckout(publicOrigin, cookie, "abbonamentoedu");
    const subscriber = (await signedInProfessional(publicOrigin)).cookie;
    await subscribeToEdu(publicOrigin, subscriber);
    const measuredUrls = [...MEASURED_URLS, checkout, SUBSCRIPTION, ...API_URLS];
    const urls = database === "PGlite" ? [...measuredUrls, ...PUBLIC_URLS] : measuredUrls;
    // The API token lives ten minutes: taken last, it outlasts the load at BENCH_DURATION ≤ 40.
    const bearer = await apiAccessToken(publicOrigin, email, password);
    const measured = await measure(origin, urls, { cookie, subscriber, bearer });
    await purchases(publicOrigin, cookie);
    if (database === "PGlite") {
      await pageWeights(origin, { url: checkout, cookie });
      await signIns(publicOrigin);
    }
    return measured;
  } finally {
    await server.stop();
  }
}

/**
 * What the metrics cost (issue 32; scripts/bench/metrics-cost.ts says why it is measured so), in
 * METRICS_PROCESSES servers one after the other, each with two doors (scripts/bench/metrics-doors.ts:
 * the same process, services and database; one door counts and times every request and has
 * /metrics, the other neither), the door without metrics made first in every other one: two doors
 * alike differ in a process by up to 0.1 ms a request, one way or the other. The cost is the mean
 * of the processes', its interval from their spread.
 */
async function measureMetricsCost() {
  console.log(`\nMetrics' cost: ${DASHBOARD} in ${METRICS_PROCESSES} processes`);
  const costs: number[] = [];
  for (let run = 0; run < METRICS_PROCESSES; run++) costs.push(await metricsCostInOneProcess(run % 2 === 1));
  const { cost, low, high } = metricsCostOverProcesses(costs);
  const label = `PGlite: what the metrics cost ${DASHBOARD}'s throughput < ${percent(METRICS_MAX_COST)}`;
  const figure = `${percent(cost)}, the processes' ${costs.map(percent).join(", ")}; 95 % interval ${percent(low)} to ${percent(high)}`;
  const pass = cost < METRICS_MAX_COST;
  console.log(`\n${label}: ${pass ? "PASS" : "FAIL"} (${figure})`);
  if (!pass) failures.push(`${label}: ${figure}`);
}

const percent = (share: number) => `${(share * 100).toFixed(2)} %`;

/** A pause before and after each timed request: its 'finish' work is done before its time is read. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1));

/**
 * One process's figure: the main thread's CPU time per dashboard at saturation through the door
 * without; then METRICS_PAIRS pairs of requests one at a time, the doors taking turns (A B, B A …),
 * each timed on the main thread, /metrics scraped through its door after every SCRAPE_EVERY pairs.
 */
async function metricsCostInOneProcess(withoutFirst: boolean): Promise<number> {
  const token = randomBytes(32).toString("base64url");
  const [withoutPort, heapPort] = [await freePort(), await freePort()];
  const server = await startServer(
    `PGlite, one server with two doors, ${withoutFirst ? "without metrics and with" : "with metrics and without"}`,
    "",
    {
      METRICS_TOKEN: token,
      METRICS_FREE_PORT: String(withoutPort),
      METRICS_HEAP_PORT: String(heapPort),
      METRICS_DOOR_WITHOUT_FIRST: String(withoutFirst),
    },
    "scripts/bench/metrics-doors.ts",
  );
  const doors = { with: server.origin, without: `http://127.0.0.1:${withoutPort}` };
  const mainThread = () => mainThreadCpuNs(server.pid);
  const heap = async () =>
    (await (await fetch(`http://127.0.0.1:${heapPort}/`)).json()) as { used: number; collections: number; ns: number };
  try {
    const headers = { cookie: (await signedInProfessional(server.publicOrigin)).cookie };
    for (const origin of Object.values(doors))
      checkResponses(`${DASHBOARD} (warm-up)`, await load(origin + DASHBOARD, WARMUP_SECONDS, headers));

    const seconds = duration / 2;
    let answers = 0;
    let atRamp: number | undefined;
    const saturated = await load(doors.without + DASHBOARD, RAMP_SECONDS + seconds, headers, (at) => {
      if (at < RAMP_SECONDS) return;
      atRamp ??= mainThread();
      answers++;
    });
    checkResponses(`${DASHBOARD} (without metrics, saturated)`, saturated);
    const saturatedPerRequest = (mainThread() - atRamp!) / answers;
    const ms = (ns: number) => (ns / 1e6).toFixed(3);
    console.log(
      `Saturated through the door without (${connections} connections, ${seconds} s): ${(answers / seconds).toFixed(0)} req/s, the main thread ${ms(saturatedPerRequest)} ms per request`,
    );

    /** One request through a door: the main thread's CPU time it took, and the heap's growth across it. */
    const timed = async (url: string, init: RequestInit): Promise<TimedRequest> => {
      const heapBefore = await heap();
      await settle();
      const before = mainThread();
      const res = await fetch(url, init);
      await res.arrayBuffer();
      await settle();
      const cpu = mainThread() - before;
      const heapAfter = await heap();
      if (res.status !== 200) failures.push(`GET ${new URL(url).pathname} answered ${res.status}`);
      return { cpu, allocated: heapAfter.used - heapBefore.used, collected: heapAfter.collections !== heapBefore.collections };
    };
    const samples = { withMetrics: [] as TimedRequest[], without: [] as TimedRequest[], scrapes: [] as number[] };
    const collectorBefore = (await heap()).ns;
    for (let pair = 0; pair < METRICS_PAIRS; pair++) {
      const withFirst = pair % 2 === 0;
      const first = await timed((withFirst ? doors.with : doors.without) + DASHBOARD, { headers });
      const second = await timed((withFirst ? doors.without : doors.with) + DASHBOARD, { headers });
      samples.withMetrics.push(withFirst ? first : second);
      samples.without.push(withFirst ? second : first);
      if ((pair + 1) % SCRAPE_EVERY === 0)
        samples.scrapes.push((await timed(`${doors.with}/metrics`, { headers: { authorization: `Bearer ${token}` } })).cpu);
    }
    const collectorPerRequest = ((await heap()).ns - collectorBefore) / (2 * METRICS_PAIRS);
    const figures = metricsCost({ ...samples, collectorPerRequest, saturatedPerRequest });
    const kb = (bytes: number) => (bytes / 1000).toFixed(1);
    console.log(
      `${METRICS_PAIRS} pairs one at a time: the counting ${ms(figures.counting)} ms a request; ` +
        `requests over ${SLOW_TIMES} × the median ${figures.slow.withMetrics} with metrics, ${figures.slow.without} without; ` +
        `allocated with metrics ${kb(figures.allocated.withMetrics)} KB, without ${kb(figures.allocated.without)} KB; ` +
        `the collector ${ms(collectorPerRequest)} ms a request, the counting's share ${ms(figures.collector)} ms; ` +
        `${samples.scrapes.length} scrapes of ${ms(mean(samples.scrapes))} ms, ${percent(figures.scrapesShare)} of the main thread`,
    );
    console.log(`This process: ${percent(figures.cost)} (95 % interval ${percent(figures.low)} to ${percent(figures.high)})`);
    return figures.cost;
  } finally {
    await server.stop();
  }
}

const results: { database: string; measured: Measured[] }[] = [];
let benchDatabase: Awaited<ReturnType<typeof createBenchDatabase>> | undefined;
try {
  console.log("Building the portal…");
  await run(process.execPath, [path.join(root, "node_modules/.bin/react-router"), "build"]);
  if (!metricsOnly) results.push({ database: "PGlite", measured: await benchOn("PGlite", "") });
  await measureMetricsCost();
  if (metricsOnly) {
    console.log("\n(BENCH_METRICS_ONLY: the metrics' cost alone.)");
  } else if (process.env.DATABASE_URL) {
    benchDatabase = await createBenchDatabase(process.env.DATABASE_URL);
    results.push({ database: "PostgreSQL", measured: await benchOn("PostgreSQL", benchDatabase.url) });
  } else {
    console.log("\n(Set DATABASE_URL to a PostgreSQL server to measure on PostgreSQL too.)");
  }
  for (const { database, measured } of results) report(database, measured);
} catch (error) {
  failures.push(error instanceof Error ? error.message : String(error));
} finally {
  await stopServers();
  await benchDatabase?.drop().catch((error: unknown) => failures.push(`dropping the bench database: ${String(error)}`));
}

serverLog.print();
if (failures.length) console.log(`\nFAIL:\n${failures.map((f) => `  - ${f}`).join("\n")}`);
else console.log("\nAll requests succeeded and all budgets pass.");
process.exit(failures.length ? 1 : 0);
