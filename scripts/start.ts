// `npm start`: builds the portal when the build is missing or older than the sources, then
// runs the server in this same process (it migrates the database and seeds an empty one).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const BUILD_STAMP = "build/server/index.js";
const SOURCES = ["app", "server", "public", "react-router.config.ts", "vite.config.ts", "package-lock.json"];

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const builtAt = existsSync(BUILD_STAMP) ? statSync(BUILD_STAMP).mtimeMs : 0;
if (SOURCES.some((s) => newestMtime(s) > builtAt)) {
  console.log("Building the portal…");
  run("react-router", ["build"]);
}
await import("../server/main.ts");
