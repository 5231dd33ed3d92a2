import { describe, expect, it } from "vitest";
import {
  metricsCost,
  metricsCostOverProcesses,
  SCRAPE_INTERVAL_NS,
  trimmedMeanAndError,
  type TimedRequest,
} from "./metrics-cost.ts";

/** Requests of these CPU times (ns), each allocating `allocated` bytes with no collection. */
const requests = (cpus: number[], allocated = 1_000_000): TimedRequest[] =>
  cpus.map((cpu) => ({ cpu, allocated, collected: false }));

describe("a trimmed mean", () => {
  it("leaves out the given share at each end, and its error comes from the winsorized values", () => {
    const values = [100, 1, 2, 3, 4, 5, 6, 7, 8, -50];
    const { mean, error } = trimmedMeanAndError(values, 0.1);
    expect(mean).toBeCloseTo(4.5); // 1 … 8
    // Winsorized: 1 1 2 3 4 5 6 7 8 8, standard deviation 2.7183; over (1 - 0.2) × √10.
    expect(error).toBeCloseTo(2.7183 / (0.8 * Math.sqrt(10)), 3);
  });

  it("is moved little by a pause at either end, where the plain mean is moved far", () => {
    const steady = Array.from({ length: 100 }, (_, i) => 40 + (i % 5));
    const paused = [...steady.slice(2), 30_000, -25_000];
    expect(trimmedMeanAndError(paused, 0.1).mean).toBeCloseTo(trimmedMeanAndError(steady, 0.1).mean, 0);
    expect(Math.abs(paused.reduce((a, b) => a + b) / paused.length - 42)).toBeGreaterThan(40);
  });

  it("refuses to trim everything", () => {
    expect(() => trimmedMeanAndError([1, 2, 3], 0.5)).toThrow();
  });
});

describe("what the metrics cost the dashboard's throughput", () => {
  it("adds the counting, the collector's share and the scrapes' share of the main thread", () => {
    const cost = metricsCost({
      // Each with metrics 0.1 ms more, 2 % more allocated.
      withMetrics: requests([5.1e6, 5.2e6, 5.0e6, 5.1e6], 1_020_000),
      without: requests([5.0e6, 5.1e6, 4.9e6, 5.0e6], 1_000_000),
      scrapes: [0.15e9], // a tenth of a second every 15 s: 1 % of the main thread
      collectorPerRequest: 0.5e6,
      saturatedPerRequest: 4.0e6,
    });
    expect(cost.counting).toBeCloseTo(0.1e6);
    expect(cost.allocated).toEqual({ withMetrics: 1_020_000, without: 1_000_000 });
    expect(cost.collector).toBeCloseTo((0.5e6 * 20_000) / 1_010_000);
    expect(cost.scrapesShare).toBeCloseTo(0.15e9 / SCRAPE_INTERVAL_NS);
    const added = cost.counting + cost.collector;
    expect(cost.cost).toBeCloseTo(1 - (0.99 * 4.0e6) / (4.0e6 + added));
    // The pairs agree exactly: no interval.
    expect(cost.low).toBeCloseTo(cost.cost);
    expect(cost.high).toBeCloseTo(cost.cost);
  });

  it("reads the allocation only of requests no collection fell in, and never counts the collector below nothing", () => {
    const withMetrics = requests([2, 2, 2], 900);
    withMetrics[1] = { cpu: 2, allocated: -5_000_000, collected: true };
    const cost = metricsCost({
      withMetrics,
      without: requests([1, 1, 1], 1_000),
      scrapes: [],
      collectorPerRequest: 10,
      saturatedPerRequest: 9,
    });
    expect(cost.allocated.withMetrics).toBe(900);
    expect(cost.collector).toBe(0);
    expect(cost.scrapesShare).toBe(0);
    expect(cost.cost).toBeCloseTo(1 / 10);
  });

  it("counts each door's slow requests, over three times the median request", () => {
    const cost = metricsCost({
      withMetrics: requests([10, 31, 10, 10]),
      without: requests([10, 10, 40, 50]),
      scrapes: [],
      collectorPerRequest: 0,
      saturatedPerRequest: 9,
    });
    expect(cost.slow).toEqual({ withMetrics: 1, without: 2 });
  });

  it("has an interval as wide as the pairs disagree", () => {
    const cost = (cpus: number[]) =>
      metricsCost({
        withMetrics: requests(cpus),
        without: requests(cpus.map(() => 1)),
        scrapes: [],
        collectorPerRequest: 0,
        saturatedPerRequest: 9,
      });
    const steady = cost([2, 2, 2, 2]);
    const scattered = cost([1, 3, 1, 3]);
    expect(scattered.cost).toBeCloseTo(steady.cost);
    expect(steady.high - steady.low).toBeCloseTo(0);
    expect(scattered.high - scattered.low).toBeGreaterThan(0.1);
  });

  it("refuses requests that are not in pairs", () => {
    expect(() =>
      metricsCost({
        withMetrics: requests([1, 2]),
        without: requests([1]),
        scrapes: [],
        collectorPerRequest: 0,
        saturatedPerRequest: 1,
      }),
    ).toThrow();
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
