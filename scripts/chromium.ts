// Finds Debian's Chromium for the browser tests. Playwright never downloads a browser here.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/snap/bin/chromium"];

function found(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH points to ${configured}, which does not exist.`);
    return configured;
  }
  return CANDIDATES.find((p) => existsSync(p));
}

function isDebianRoot() {
  return process.getuid?.() === 0 && existsSync("/etc/debian_version") && existsSync("/usr/bin/apt-get");
}

/**
 * The path of a Chromium binary. On a fresh Debian machine where we are root, installs
 * Debian's `chromium` package; elsewhere fails with instructions.
 */
export function ensureChromium(): string {
  const existing = found();
  if (existing) return existing;
  if (!isDebianRoot()) {
    throw new Error(
      "Chromium not found. Install it (Debian/Ubuntu: `sudo apt-get install chromium`) " +
        "or point CHROMIUM_PATH at a Chromium or Chrome binary.",
    );
  }
  console.log("Chromium not found: installing Debian's chromium package…");
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", "chromium"]]) {
    const r = spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed`);
  }
  const installed = found();
  if (!installed) throw new Error("chromium was installed but no binary was found");
  console.log(execFileSync(installed, ["--version"], { encoding: "utf8" }).trim());
  return installed;
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
