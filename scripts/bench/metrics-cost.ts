// What the metrics cost, as the bench's last part works it out (scripts/bench.ts, part 5). Loaded
// to saturation, the portal's process is bound by its main thread (the one that runs JavaScript:
// on a CPU 97 % of the time while the database's worker idled 92 %), so its throughput is one over
// the main thread's CPU time per request, and what the metrics cost the throughput is the time
// they add to that. Rounds of load through each door measure it too coarsely on this machine: the
// same door's CPU time per request swung between 4 and 10 ms from one second to the next, and the
// two doors with no metrics on either differed by ±10 % a round. So the time the metrics add is
// measured request by request instead (the doors take turns, one request at a time, each timed by
// the scheduler's account of the main thread), where a drift of the machine weighs on both doors
// alike, and set against the CPU time per request measured at saturation.

export const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The mean of `values` and its standard error. */
function meanAndError(values: readonly number[]): { mean: number; error: number } {
  const average = mean(values);
  const variance = values.reduce((sum, value) => sum + (value - average) ** 2, 0) / (values.length - 1);
  return { mean: average, error: Math.sqrt(variance / values.length) };
}

/** Student's t at 95 % (two-sided) for 1 to 9 degrees of freedom; 2.26 and less beyond, taken as 2.26. */
const STUDENT_T_95 = [12.71, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26];

export type MetricsCostSamples = {
  /** The main thread's CPU time (ns) of each request through the door with metrics … */
  withMetrics: readonly number[];
  /** … and of the request through the other door it was paired with. */
  without: readonly number[];
  /** Each scrape of /metrics (ns), taken while the requests above were made. */
  scrapes: readonly number[];
  /** The main thread's CPU time per request (ns) through the door without metrics, at saturation. */
  saturatedPerRequest: number;
};

export type MetricsCost = {
  /** What the metrics add to a request (ns): its own counting, and its share of the scrapes. */
  added: number;
  /** … of which the scrapes' share. */
  scrapesShare: number;
  /** The share of the throughput they cost: added / (saturatedPerRequest + added). */
  cost: number;
  /** cost's 95 % interval (two standard errors of the pairs' differences either side). */
  low: number;
  high: number;
};

export function metricsCost({ withMetrics, without, scrapes, saturatedPerRequest }: MetricsCostSamples): MetricsCost {
  if (withMetrics.length !== without.length || withMetrics.length < 2)
    throw new Error("the requests come in pairs, at least two");
  const { mean, error } = meanAndError(withMetrics.map((value, i) => value - without[i]!));
  const scrapesShare = scrapes.reduce((sum, value) => sum + value, 0) / withMetrics.length;
  const share = (added: number) => added / (saturatedPerRequest + added);
  const added = mean + scrapesShare;
  return { added, scrapesShare, cost: share(added), low: share(added - 2 * error), high: share(added + 2 * error) };
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
