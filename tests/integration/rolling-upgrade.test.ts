// A rolling upgrade across the newest migration (scripts/upgrade-test.ts, `npm run upgrade-test`):
// two instances of the release before it serve a light load through Debian's nginx, this tree's
// migrations are applied, the instances are replaced one by one with this release, and no answer may
// be a 5xx, no visit fail, and the load's invariants hold. About a minute here (the previous
// release's build included).
import { inject, it } from "vitest";
import { previousRelease, rollingUpgrade } from "#scripts/upgrade-test.ts";
import { NGINX_BINARY } from "#tests/support/nginx.ts";

/** Why the test cannot run here, or undefined. */
function cannotRun(): string | undefined {
  // Two instances share one database, which the run creates on the PostgreSQL project's cluster;
  // PgBouncer's project would only repeat it.
  if (process.env.TEST_DATABASE !== "postgres" || inject("pgbouncerPort") !== undefined) return "PostgreSQL project only";
  if (!NGINX_BINARY && !process.env.CI) return "nginx is not installed (apt-get install nginx-light; CI installs it)";
  try {
    previousRelease();
  } catch (error) {
    return `no previous release in git's history: ${(error as Error).message}`;
  }
}

const reason = cannotRun();
if (reason && process.env.TEST_DATABASE === "postgres") console.warn(`rolling upgrade test skipped: ${reason}`);

it.skipIf(reason !== undefined)(
  "upgrades two serving instances across the newest migration with no 5xx and the invariants holding",
  async ({ expect }) => {
    const result = await rollingUpgrade({ adminUrl: process.env.DATABASE_URL!, log: () => undefined });
    console.info(`rolling upgrade from ${result.from.slice(0, 12)}: ${JSON.stringify(result.figures)}`);
    expect(result.checks.filter((check) => !check.ok)).toEqual([]);
    // The load went on throughout: customers bought on the previous release over the new schema,
    // while the instances were replaced, and on this release.
    expect(result.figures.replaced).toHaveLength(2);
    expect(result.figures.purchasesBy.previousOnNewSchema).toBeGreaterThan(0);
    expect(result.figures.purchasesBy.duringRoll).toBeGreaterThan(0);
    expect(result.figures.purchasesBy.after).toBeGreaterThan(0);
  },
  300_000,
);
