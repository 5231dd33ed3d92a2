// What the metrics cost, as the bench's last part works it out (scripts/bench.ts, part 5). Loaded
// to saturation, the portal's process is bound by its main thread (the one that runs JavaScript:
// on a CPU 97 % of the time while the database's worker idled 92 %), so its throughput is one over
// the main thread's CPU time per request, and what the metrics cost the throughput is the time
// they add to that. Rounds of load through each door measure it too coarsely on this machine: the
// same door's CPU time per request swung between 4 and 10 ms from one second to the next, and the
// two doors with no metrics on either differed by ±10 % a round. So the time the metrics add is
// measured request by request instead (the doors take turns, one request at a time, each timed by
// the scheduler's account of the main thread), where a drift of the machine weighs on both doors
// alike, and set against the CPU time per request measured at saturation. What they add is three
// parts:
//   - the counting: the pairs' differences, their trimmed mean (TRIMMED from each end). Some 2
//     to 4 requests in a hundred take 10 to 40 ms of the main thread instead of 3 (one in fifty a
//     collection, as many more a pause with no collection reported: its cause was not found), on
//     either door at random. Left in, they spread the pairs' differences by ±3 to ±5 ms, and
//     their mean ranged from -0.15 to +0.18 ms (±8 % of a saturated request) in four processes
//     of 1 000 pairs, where the trimmed mean of the same pairs ranged from 0.02 to 0.06 ms;
//   - the collector's work for what the door with metrics allocates more: the collector's time
//     per request in that share (the heap's growth across a request, read from the server,
//     averaged over the requests no collection fell in);
//   - the scrapes: Prometheus reads an instance every SCRAPE_INTERVAL_NS whatever its load, so at
//     saturation a scrape takes its time out of every such interval, not out of each request.

import { mean, percentiles } from "./figures.ts";

/** The mean of `values` and its standard error. */
function meanAndError(values: readonly number[]): { mean: number; error: number } {
  const average = mean(values);
  const variance = values.reduce((sum, value) => sum + (value - average) ** 2, 0) / (values.length - 1);
  return { mean: average, error: Math.sqrt(variance / values.length) };
}

/** The share of the pairs' differences left out at each end of their trimmed mean. */
const TRIMMED = 0.1;

/**
 * The mean of `values` without the `trimmed` share at each end, and its standard error (Tukey and
 * McLaughlin's: from the winsorized values, the trimmed ones set to the nearest kept).
 */
export function trimmedMeanAndError(values: readonly number[], trimmed: number): { mean: number; error: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * trimmed);
  const kept = sorted.slice(cut, sorted.length - cut);
  if (kept.length < 2) throw new Error("too few values to trim");
  const winsorized = sorted.map((value) => Math.min(Math.max(value, kept[0]!), kept.at(-1)!));
  // The winsorized values' standard error, over the share kept.
  return { mean: mean(kept), error: meanAndError(winsorized).error / (kept.length / sorted.length) };
}

/** Student's t at 95 % (two-sided) for 1 to 9 degrees of freedom; 2.26 and less beyond, taken as 2.26. */
const STUDENT_T_95 = [12.71, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26];

/** How often Prometheus reads each instance: docs/operating.md's scrape_interval (Prometheus's own default is a minute). */
export const SCRAPE_INTERVAL_NS = 15e9;

/** One request timed by the bench. */
export type TimedRequest = {
  /** The main thread's CPU time it took (ns). */
  cpu: number;
  /** The bytes the heap grew by across it. */
  allocated: number;
  /** Whether the collector ran while it was made (then `allocated` means nothing). */
  collected: boolean;
};

export type MetricsCostSamples = {
  /** Each request through the door with metrics … */
  withMetrics: readonly TimedRequest[];
  /** … and the request through the other door it was paired with. */
  without: readonly TimedRequest[];
  /** Each scrape of /metrics (ns of the main thread), taken while the requests above were made. */
  scrapes: readonly number[];
  /** The collector's time on the main thread (ns) while the pairs were made, per request. */
  collectorPerRequest: number;
  /** The main thread's CPU time per request (ns) through the door without metrics, at saturation. */
  saturatedPerRequest: number;
};

/** A request this many times the median one's CPU time is a slow one (a pause fell in it). */
export const SLOW_TIMES = 3;

export type MetricsCost = {
  /** What the counting adds to a request (ns): the pairs' trimmed mean difference. */
  counting: number;
  /**
   * The slow requests through each door. The trimmed mean takes them for pauses that fall on
   * either door at random: about as many on each, or the metrics cause some, and the trimmed mean
   * would not see it.
   */
  slow: { withMetrics: number; without: number };
  /** The bytes a request allocates through the door with metrics, and without (no collection in it). */
  allocated: { withMetrics: number; without: number };
  /** The collector's time for what the door with metrics allocates more (ns a request; never below 0). */
  collector: number;
  /** The share of the main thread's time the scrapes take at saturation. */
  scrapesShare: number;
  /** The share of the throughput the metrics cost, with its 95 % interval (the counting's two standard errors). */
  cost: number;
  low: number;
  high: number;
};

export function metricsCost(samples: MetricsCostSamples): MetricsCost {
  const { withMetrics, without, scrapes, collectorPerRequest, saturatedPerRequest } = samples;
  if (withMetrics.length !== without.length) throw new Error("the requests come in pairs");
  const { mean: counting, error } = trimmedMeanAndError(
    withMetrics.map((request, i) => request.cpu - without[i]!.cpu),
    TRIMMED,
  );
  const slowerThan = SLOW_TIMES * percentiles([...withMetrics, ...without].map((request) => request.cpu)).p50;
  const slow = (requests: readonly TimedRequest[]) => requests.filter((request) => request.cpu > slowerThan).length;
  const bytes = (requests: readonly TimedRequest[]) =>
    mean(requests.filter((request) => !request.collected).map((request) => request.allocated));
  const allocated = { withMetrics: bytes(withMetrics), without: bytes(without) };
  // The collector's work grows with what is allocated: its time per request, in the share the
  // door with metrics allocates above the pairs' average request.
  const extraBytes = Math.max(0, allocated.withMetrics - allocated.without);
  const collector = (collectorPerRequest * extraBytes) / ((allocated.withMetrics + allocated.without) / 2);
  const scrapesShare = scrapes.length ? mean(scrapes) / SCRAPE_INTERVAL_NS : 0;
  // Saturated, the main thread's time the scrapes leave goes to requests that each take `added`
  // more: the throughput falls to (1 - scrapesShare) / (saturated + added) from 1 / saturated.
  const share = (added: number) => 1 - ((1 - scrapesShare) * saturatedPerRequest) / (saturatedPerRequest + added);
  const added = counting + collector;
  return {
    counting,
    slow: { withMetrics: slow(withMetrics), without: slow(without) },
    allocated,
    collector,
    scrapesShare,
    cost: share(added),
    low: share(added - 2 * error),
    high: share(added + 2 * error),
  };
}

/**
 * The cost over several processes (two doors alike differ in one process by up to 0.1 ms a
 * request, one way or the other): their mean, with a 95 % interval from their spread.
 */
export function metricsCostOverProcesses(costs: readonly number[]): { cost: number; low: number; high: number } {
  if (costs.length < 2) throw new Error("the spread needs two processes at least");
  const { mean: cost, error } = meanAndError(costs);
  const t = STUDENT_T_95[Math.min(costs.length - 1, STUDENT_T_95.length) - 1]!;
  return { cost, low: cost - t * error, high: cost + t * error };
}
