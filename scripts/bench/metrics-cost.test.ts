import { describe, expect, it } from "vitest";
import { metricsCost, metricsCostOverProcesses } from "./metrics-cost.ts";

describe("what the metrics cost the dashboard's throughput", () => {
  it("is the time they add to a request, scrapes' share included, over the saturated time per request with it", () => {
    // Pairs 0.1 ms apart on average; two scrapes of 1 ms over four requests: 0.5 ms a request.
    const cost = metricsCost({
      withMetrics: [5.1e6, 5.2e6, 5.0e6, 5.1e6],
      without: [5.0e6, 5.0e6, 5.0e6, 5.0e6],
      scrapes: [1e6, 1e6],
      saturatedPerRequest: 4.4e6,
    });
    expect(cost.scrapesShare).toBeCloseTo(0.5e6);
    expect(cost.added).toBeCloseTo(0.6e6);
    expect(cost.cost).toBeCloseTo(0.6 / 5.0);
    expect(cost.low).toBeLessThan(cost.cost);
    expect(cost.high).toBeGreaterThan(cost.cost);
  });

  it("has an interval as wide as the pairs disagree", () => {
    const steady = metricsCost({ withMetrics: [2, 2, 2], without: [1, 1, 1], scrapes: [], saturatedPerRequest: 9 });
    expect(steady.low).toBeCloseTo(steady.high);
    const scattered = metricsCost({ withMetrics: [1, 3, 2], without: [1, 1, 1], scrapes: [], saturatedPerRequest: 9 });
    expect(scattered.cost).toBeCloseTo(steady.cost);
    expect(scattered.high - scattered.low).toBeGreaterThan(0.1);
  });

  it("refuses requests that are not in pairs", () => {
    expect(() => metricsCost({ withMetrics: [1, 2], without: [1], scrapes: [], saturatedPerRequest: 1 })).toThrow();
  });

  it("over several processes is their mean, its interval from their spread with Student's t", () => {
    const over = metricsCostOverProcesses([0.02, 0.04, 0.03, 0.05]);
    expect(over.cost).toBeCloseTo(0.035);
    // Standard error 0.00645; t at 3 degrees of freedom 3.18.
    expect(over.high - over.cost).toBeCloseTo(3.18 * 0.006455, 4);
    expect(over.cost - over.low).toBeCloseTo(over.high - over.cost);
    expect(() => metricsCostOverProcesses([0.03])).toThrow();
  });
});
