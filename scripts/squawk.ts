// Squawk, the PostgreSQL migration linter (`npm run lint` runs it on server/db/migrations with
// .squawk.toml; docs/operating.md, "Upgrading").
//
// Squawk is a Rust binary that npm ships per platform. The wrapper package, squawk-cli, lists
// every platform's package as optional, and a lock file must then name them all; the registry
// this project installs from carries only linux-x64's, so `npm ci` refused the lock file. The
// project depends on the platform package itself instead (optionalDependencies: skipped on
// another platform) and runs its binary from here.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

/** Squawk's binary for this machine, or undefined where npm has none installed. */
export function squawkBinary(): string | undefined {
  const binary = path.join(root, "node_modules", "@squawk-cli", `${process.platform}-${process.arch}`, "bin", "squawk");
  return existsSync(binary) ? binary : undefined;
}

if (import.meta.main) {
  const binary = squawkBinary();
  if (!binary) {
    // Only linux-x64's is in the project's dependencies (above): elsewhere the migrations are not
    // linted, and CI (linux-x64) does lint them.
    if (process.platform === "linux" && process.arch === "x64") {
      console.error("squawk: node_modules/@squawk-cli/linux-x64 is missing: run npm ci");
      process.exit(1);
    }
    console.warn(`squawk: no binary for ${process.platform}-${process.arch}; migrations not linted here (CI lints them)`);
    process.exit(0);
  }
  const run = spawnSync(binary, ["--config", path.join(root, ".squawk.toml"), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
