// The alert rules shipped for Prometheus (deploy/prometheus/portal-alerts.yml) pass their own
// tests with Debian's promtool: each rule on series that must fire it and series that must not.
// .ci/run installs Debian's `prometheus` package, which carries promtool.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMetrics } from "#server/metrics.ts";

const folder = path.resolve(import.meta.dirname, "../../deploy/prometheus");
const promtool = (...args: string[]) => execFileSync("promtool", args, { cwd: folder, encoding: "utf8", stdio: "pipe" });

describe("the alert rules", () => {
  it("are valid rules, each fired by its promtool test and not by the series beside it", () => {
    expect(promtool("check", "rules", "portal-alerts.yml")).toContain("SUCCESS: 9 rules found");
    expect(promtool("test", "rules", "portal-alerts.test.yml")).toContain("SUCCESS");
  });

  it("name only metrics the portal exports", async () => {
    const metrics = createMetrics();
    const rules = readFileSync(path.join(folder, "portal-alerts.yml"), "utf8");
    // The gauges read at each scrape are registered by the services: named here as the services name them.
    const services = readFileSync(path.resolve(import.meta.dirname, "../../server/services.ts"), "utf8");
    const exported = new Set([
      ...(await metrics.registry.getMetricsAsJSON()).map((m) => m.name),
      ...[...services.matchAll(/"(portal_[a-z_]+)"/g)].map((m) => m[1]!),
    ]);
    const named = new Set([...rules.matchAll(/\b(portal_[a-z_]+?)(?:_bucket)?\b/g)].map((m) => m[1]!));
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });
});
