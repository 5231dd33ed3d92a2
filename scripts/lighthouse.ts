// `npm run lighthouse`: what a customer on a slow phone waits for (issue 30).
//
// Builds the portal when its sources are newer than the build, starts it as production on the
// embedded database (a fresh DATA_DIR, the sandbox card gateway, mail off), signs a legal
// professional in (first access done), and:
//   1. runs Lighthouse (mobile profile: simulated slow 4G, 150 ms RTT, 1.6 Mbit/s, CPU ÷ 4) RUNS
//      times on each page of the table and prints the median LCP, FCP, TBT, CLS and bytes
//      transferred (LCP and TBT with their worst run too) with the target beside each; a target
//      holds when every run meets it. The login screen is measured from /login/ and its
//      redirects' cost taken off ("≤ 1.2 s after the last redirect"); / signed out keeps its
//      redirects (the spec's), with its own target;
//   2. walks a whole purchase in Chromium with the network at DevTools' "Slow 3G" (400 ms RTT,
//      400 kbit/s each way), with JavaScript off and then on: register, sign in, first access, EDU's
//      checkout, the sandbox card, the receipt (scripts/lighthouse/journey.ts). Each step's wait
//      (from the action to the next page's first paint), its bytes, and its floor (bytes ÷
//      bandwidth + its round trips), against the journey's budget.
// Exits 1 when a target or a budget is missed. Timings are not tests: not part of `npm test`.
//
// Environment: LIGHTHOUSE_RUNS (default 3), LIGHTHOUSE_ONLY=pages|journey to run one part,
// LIGHTHOUSE_REPORTS=<folder> (made if need be) to keep each page's whole Lighthouse report.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { openCheckout } from "./bench/checkout.ts";
import { buildIfStale } from "./build-if-stale.ts";
import { table } from "./bench/figures.ts";
import { freePort, measuredProductionEnv, seedDemoCatalogue, ServerLog, waitUntilReady } from "./bench/server.ts";
import { signedInProfessional } from "./bench/sign-in.ts";
import { lighthousePages, type PageFigures } from "./load/lighthouse.ts";
import { JOURNEY_BUDGET_MS, walkJourney, type JourneyStep } from "./lighthouse/journey.ts";

const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const ONLY = process.env.LIGHTHOUSE_ONLY;
/** A folder for each page's whole Lighthouse report (the last run's), to see why a page missed. */
const REPORTS = process.env.LIGHTHOUSE_REPORTS;
const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);

/** The table: LCP targets (ms); the checkout's TBT too. */
type Target = { page: string; path: string; signedIn?: boolean; lcpMs: number; tbtMs?: number; afterRedirects?: boolean };
const SIGNED_OUT: Target[] = [
  { page: "/edu/", path: "/edu/", lcpMs: 1_200 },
  { page: "a landing page", path: "/landingpage/landing/", lcpMs: 1_200 },
  { page: "/help-center/", path: "/help-center/", lcpMs: 1_200 },
  { page: "the login screen (from /login/)", path: "/login/", lcpMs: 1_200, afterRedirects: true },
  { page: "/ signed out (its redirects)", path: "/", lcpMs: 1_800 },
];
const SIGNED_IN: Target[] = [
  { page: "/dashboard/", path: "/dashboard/", signedIn: true, lcpMs: 1_200 },
  { page: "/my-products/", path: "/my-products/", signedIn: true, lcpMs: 1_200 },
  { page: "/profile/", path: "/profile/", signedIn: true, lcpMs: 1_200 },
];
const CHECKOUT: Omit<Target, "path"> = { page: "a checkout page", signedIn: true, lcpMs: 1_200, tbtMs: 50 };

const failures: string[] = [];
let server: ChildProcess | undefined;
let dataDir: string | undefined;
const serverLog = new ServerLog();

async function startServer(): Promise<string> {
  const port = await freePort();
  dataDir = mkdtempSync(path.join(tmpdir(), "portal-lighthouse-"));
  const origin = `http://127.0.0.1:${port}`;
  const env = measuredProductionEnv({
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_ORIGIN: origin,
    DATA_DIR: dataDir,
    DATABASE_URL: "",
  });
  await seedDemoCatalogue(env);
  server = spawn(process.execPath, ["server/main.ts"], { stdio: ["ignore", "pipe", "pipe"], env });
  serverLog.attach(server);
  await waitUntilReady(origin, server);
  return origin;
}

async function stopServer() {
  const child = server;
  if (child && child.exitCode === null && !child.signalCode) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

const median = (values: number[]) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : Number.NaN;
};
/** The worst run's figure: a target holds only when it holds in every run (issue 30: "three runs in a row"). */
const worst = (values: number[]) => (values.every(Number.isFinite) ? Math.max(...values) : Number.NaN);

/** A page's run that Lighthouse could not record (its trace, now and then) is run again, up to this. */
const RETRIES = 2;

/** Lighthouse RUNS times on every page, one round after the other; the median of each figure. */
async function measurePages(origin: string, cookie: string, checkoutPath: string) {
  const targets: Target[] = [...SIGNED_OUT, ...SIGNED_IN, { ...CHECKOUT, path: checkoutPath }];
  const pages = targets.map((t) => ({ page: t.page, url: origin + t.path, cookie: t.signedIn ? cookie : undefined }));
  const rounds: PageFigures[][] = [];
  for (let round = 1; round <= RUNS; round++) {
    console.log(`  round ${round}/${RUNS}`);
    const figures = await lighthousePages(pages, REPORTS);
    for (let retry = 0; retry < RETRIES; retry++) {
      const failed = figures.flatMap((f, i) => (f.error ? [i] : []));
      if (failed.length === 0) break;
      const again = await lighthousePages(
        failed.map((i) => pages[i]!),
        REPORTS,
      );
      failed.forEach((i, n) => (figures[i] = again[n]!));
    }
    rounds.push(figures);
  }
  const rows = targets.map((target, i) => {
    const runs = rounds.map((round) => round[i]!);
    for (const error of new Set(runs.map((r) => r.error).filter(Boolean)))
      failures.push(`Lighthouse on ${target.page}: ${error}`);
    const of = (pick: (figures: PageFigures) => number) => median(runs.map(pick));
    // "After the last redirect": what the redirects cost (Lighthouse's estimate) is taken off.
    const lcpOf = (r: PageFigures) => r.lcpMs - (target.afterRedirects ? r.redirectsMs || 0 : 0);
    const [lcp, worstLcp] = [of(lcpOf), worst(runs.map(lcpOf))];
    const [tbt, worstTbt] = [of((r) => r.tbtMs), worst(runs.map((r) => r.tbtMs))];
    const missed = !(worstLcp <= target.lcpMs) || (target.tbtMs !== undefined && !(worstTbt <= target.tbtMs));
    if (missed) failures.push(`${target.page}: worst run LCP ${worstLcp.toFixed(0)} ms, TBT ${worstTbt.toFixed(0)} ms`);
    return [
      target.page,
      `${lcp.toFixed(0)} (${worstLcp.toFixed(0)})` +
        (target.afterRedirects ? `, ${of((r) => r.lcpMs).toFixed(0)} with them` : ""),
      `≤ ${target.lcpMs}`,
      of((r) => r.fcpMs).toFixed(0),
      `${tbt.toFixed(0)} (${worstTbt.toFixed(0)})` + (target.tbtMs !== undefined ? ` ≤ ${target.tbtMs}` : ""),
      of((r) => r.cls).toFixed(3),
      (of((r) => r.transferBytes) / 1000).toFixed(1),
      missed ? "MISSED" : "ok",
    ];
  });
  console.log();
  table(["page", "LCP ms (worst)", "target", "FCP ms", "TBT ms (worst)", "CLS", "KB", ""], rows);
}

function printJourney(title: string, steps: JourneyStep[], budgetMs: number) {
  console.log(`\n${title}`);
  table(
    ["step", "waited ms", "floor ms", "KB", "round trips"],
    steps.map((s) => [s.step, s.waitedMs.toFixed(0), s.floorMs.toFixed(0), (s.bytes / 1000).toFixed(1), String(s.roundTrips)]),
  );
  const total = steps.reduce((sum, s) => sum + s.waitedMs, 0);
  const floor = steps.reduce((sum, s) => sum + s.floorMs, 0);
  console.log(
    `  in all: ${(total / 1000).toFixed(1)} s waited, floor ${(floor / 1000).toFixed(1)} s, budget ${budgetMs / 1000} s`,
  );
  if (total > budgetMs) failures.push(`${title}: ${(total / 1000).toFixed(1)} s, over its budget of ${budgetMs / 1000} s`);
}

async function main() {
  if (REPORTS) mkdirSync(REPORTS, { recursive: true });
  buildIfStale();
  try {
    const origin = await startServer();
    if (ONLY !== "journey") {
      const { cookie } = await signedInProfessional(origin);
      const checkoutPath = await openCheckout(origin, cookie, EDU_PRODUCT_CODE);
      console.log(
        `\nLighthouse, mobile profile (simulated slow 4G, CPU ÷ 4): median (and worst) of ${RUNS} runs per page; a target holds when every run meets it`,
      );
      await measurePages(origin, cookie, checkoutPath);
    }
    if (ONLY !== "pages") {
      for (const javaScript of [false, true]) {
        const steps = await walkJourney(origin, { javaScript });
        printJourney(
          `A whole purchase at Slow 3G (400 ms RTT, 400 kbit/s), JavaScript ${javaScript ? "on" : "off"}`,
          steps,
          JOURNEY_BUDGET_MS[javaScript ? "on" : "off"],
        );
      }
    }
  } finally {
    await stopServer();
    serverLog.print();
  }
  if (failures.length) {
    console.error(`\n✖ ${failures.length} target(s) missed:\n  ${failures.join("\n  ")}`);
    process.exit(1);
  }
  console.log("\n✔ every target met");
}

await main();
