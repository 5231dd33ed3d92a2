// The figures the bench and the load script print: latency quantiles and plain-text tables.

/** The `share` quantile (0.5, 0.99…) of values sorted in ascending order, by nearest rank; 0 for none. */
export function quantile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] ?? 0;
}

/** p50 and p99 of `values` (ms); 0 for an empty list. */
export function percentiles(values: readonly number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
}

/**
 * Side A's figures against side B's, measured in pairs of rounds: the median of the pairs' ratios
 * (a round that a neighbour's burst of work slowed moves it less than it moves their sums), and the
 * lowest and highest of them (its spread).
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): { ratio: number; low: number; high: number } {
  const pairs = a.map((value, i) => value / b[i]!).sort((x, y) => x - y);
  const middle = pairs.length / 2;
  const ratio = pairs.length % 2 ? pairs[Math.floor(middle)]! : (pairs[middle - 1]! + pairs[middle]!) / 2;
  return { ratio, low: pairs[0]!, high: pairs.at(-1)! };
}

/** A table on the console: the first column left-aligned, the others (figures) right-aligned. */
export function table(head: string[], rows: string[][]) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(head));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}
