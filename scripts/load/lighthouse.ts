// Lighthouse on the portal's pages, in Debian's Chromium (scripts/chromium.ts finds or installs
// it), with Lighthouse's default settings: a mobile phone's screen and simulated throttling (a slow
// 4G network, a CPU 4 × slower). Signed-in pages get the customer's session cookie. For each page:
// Largest Contentful Paint, First Contentful Paint, Total Blocking Time, Cumulative Layout Shift,
// the time lost to redirects, the bytes transferred and the performance score.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import lighthouse from "lighthouse";
import { CHROMIUM_ARGS, ensureChromium } from "#scripts/chromium.ts";
import { freePort } from "#scripts/bench/server.ts";

export type PageFigures = {
  page: string;
  url: string;
  lcpMs: number;
  fcpMs: number;
  tbtMs: number;
  cls: number;
  /** What the redirects before the page cost (Lighthouse's simulated estimate). */
  redirectsMs: number;
  transferBytes: number;
  score: number;
  /** Lighthouse's runtime error, when the page could not be measured. */
  error?: string;
};

async function devtoolsReady(port: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json/version`);
      if (res.ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Chromium's DevTools did not answer on port ${port} within ${timeoutMs / 1000} s`);
}

type MeasuredPage = { page: string; url: string; cookie?: string };

/**
 * Runs Lighthouse on each page, one after the other: the signed-out pages in one headless
 * Chromium, the signed-in ones in another. A signed-out page leaves cookies in the browser (the
 * sign-in's state), which Chromium would send instead of the customer's session cookie that
 * Lighthouse adds as a header: the signed-in pages then measured the login screen. With
 * `reportDir`, each page's whole report goes there as JSON (its name from the page's).
 */
export async function lighthousePages(pages: MeasuredPage[], reportDir?: string): Promise<PageFigures[]> {
  const signedOut = await inOneBrowser(
    pages.filter((p) => !p.cookie),
    reportDir,
  );
  const signedIn = await inOneBrowser(
    pages.filter((p) => p.cookie),
    reportDir,
  );
  return pages.map((p) => (p.cookie ? signedIn : signedOut).shift()!);
}

async function inOneBrowser(pages: MeasuredPage[], reportDir?: string): Promise<PageFigures[]> {
  if (pages.length === 0) return [];
  const { CHROMIUM_PATH } = ensureChromium();
  const port = await freePort();
  const profile = mkdtempSync(path.join(tmpdir(), "portal-lighthouse-"));
  const chromium = spawn(
    CHROMIUM_PATH,
    [
      "--headless",
      ...CHROMIUM_ARGS,
      ...(CHROMIUM_ARGS.includes("--no-sandbox") ? [] : ["--no-sandbox"]),
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdio: "ignore" },
  );
  try {
    await devtoolsReady(port);
    const figures: PageFigures[] = [];
    for (const { page, url, cookie } of pages) {
      const result = await lighthouse(url, {
        port,
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance"],
        extraHeaders: cookie ? { Cookie: cookie } : undefined,
      });
      const lhr = result?.lhr;
      if (reportDir && lhr) {
        writeFileSync(path.join(reportDir, `${page.replace(/[^\w]+/g, "-").replace(/^-|-$/g, "")}.json`), JSON.stringify(lhr));
      }
      const value = (audit: string) => lhr?.audits[audit]?.numericValue ?? Number.NaN;
      figures.push({
        page,
        url,
        lcpMs: value("largest-contentful-paint"),
        fcpMs: value("first-contentful-paint"),
        tbtMs: value("total-blocking-time"),
        cls: value("cumulative-layout-shift"),
        redirectsMs: value("redirects"),
        transferBytes: value("total-byte-weight"),
        score: (lhr?.categories.performance?.score ?? Number.NaN) * 100,
        error: lhr?.runtimeError?.message,
      });
    }
    return figures;
  } finally {
    chromium.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 200));
    rmSync(profile, { recursive: true, force: true });
  }
}
