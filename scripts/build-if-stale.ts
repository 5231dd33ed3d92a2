// Builds the portal (react-router build) when the build is missing or older than its sources:
// `npm start` and `npm run load` serve the production build and must not serve a stale one.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const BUILD_STAMP = path.join(root, "build/server/index.js");
const SOURCES = ["app", "server", "public", "shared", "react-router.config.ts", "vite.config.ts", "package-lock.json"];

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

/** Whether the build is missing or older than one of its sources. */
export function buildIsStale(): boolean {
  const builtAt = existsSync(BUILD_STAMP) ? statSync(BUILD_STAMP).mtimeMs : 0;
  return SOURCES.some((s) => newestMtime(path.join(root, s)) > builtAt);
}

/** Builds when needed; exits the process with the build's status when the build fails. */
export function buildIfStale() {
  if (!buildIsStale()) return;
  console.log("Building the portal…");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/.bin/react-router"), "build"], {
    stdio: "inherit",
    cwd: root,
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
