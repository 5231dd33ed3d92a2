// Finds Debian's Chromium for the browser tests. Playwright never downloads a browser here.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** A browser the tests can use: where a configuration variable points, or where Debian puts it. */
type Browser = { variable: string; debianPackage: string; candidates: string[] };

const CHROMIUM: Browser = {
  variable: "CHROMIUM_PATH",
  debianPackage: "chromium",
  candidates: ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/snap/bin/chromium"],
};

// Chromium's headless shell: the same engine without the desktop browser around it, which takes
// half the time per test on this 2-core machine. It does not route a navigation that a redirect
// sends to another origin (Stripe's hosted page, stripe-support.ts), so the Stripe projects keep
// the full browser.
const HEADLESS_SHELL: Browser = {
  variable: "CHROMIUM_HEADLESS_SHELL_PATH",
  debianPackage: "chromium-headless-shell",
  candidates: ["/usr/bin/chromium-headless-shell"],
};

function found({ variable, candidates }: Browser): string | undefined {
  const configured = process.env[variable];
  if (configured) {
    if (!existsSync(configured)) throw new Error(`${variable} points to ${configured}, which does not exist.`);
    return configured;
  }
  return candidates.find((p) => existsSync(p));
}

function isDebianRoot() {
  return process.getuid?.() === 0 && existsSync("/etc/debian_version") && existsSync("/usr/bin/apt-get");
}

/** The binary of `browser`, installed from Debian's package when missing and we are root on Debian. */
function ensure(browser: Browser): string | undefined {
  const existing = found(browser);
  if (existing || !isDebianRoot()) return existing;
  console.log(`${browser.debianPackage} not found: installing Debian's package…`);
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", browser.debianPackage]]) {
    const r = spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed`);
  }
  const installed = found(browser);
  if (!installed) throw new Error(`${browser.debianPackage} was installed but no binary was found`);
  console.log(execFileSync(installed, ["--version"], { encoding: "utf8" }).trim());
  return installed;
}

/**
 * The browsers for the tests, as the variables Playwright's configuration reads: Chromium
 * (CHROMIUM_PATH), and its headless shell (CHROMIUM_HEADLESS_SHELL_PATH) where there is one, else
 * Chromium again. On a fresh Debian machine where we are root, installs Debian's packages;
 * elsewhere, without a Chromium, fails with instructions.
 */
export function ensureChromium(): { CHROMIUM_PATH: string; CHROMIUM_HEADLESS_SHELL_PATH: string } {
  const chromium = ensure(CHROMIUM);
  if (!chromium) {
    throw new Error(
      "Chromium not found. Install it (Debian/Ubuntu: `sudo apt-get install chromium chromium-headless-shell`) " +
        "or point CHROMIUM_PATH at a Chromium or Chrome binary.",
    );
  }
  let shell: string | undefined;
  try {
    shell = ensure(HEADLESS_SHELL);
  } catch (error) {
    console.warn(`${(error as Error).message}: the tests run in Chromium itself, only slower`);
  }
  return { CHROMIUM_PATH: chromium, CHROMIUM_HEADLESS_SHELL_PATH: shell ?? chromium };
}

/** Flags for this sandbox: no GPU, no calls home, and no sandbox when running as root. */
export const CHROMIUM_ARGS = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
];
