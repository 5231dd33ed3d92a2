// The bench's latency figures: p50 and p99 of a list of durations (nearest rank).

/** p50 and p99 of `values` (ms); 0 for an empty list. */
export function percentiles(values: readonly number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}
