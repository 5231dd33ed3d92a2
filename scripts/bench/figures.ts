// The figures the bench and the load script print: latency quantiles and plain-text tables.

/** The `share` quantile (0.5, 0.99…) of values sorted in ascending order, by nearest rank; 0 for none. */
export function quantile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] ?? 0;
}

/** The arithmetic mean of `values` (NaN for none). */
export const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** p50 and p99 of `values` (ms); 0 for an empty list. */
export function percentiles(values: readonly number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
}

/** A table on the console: the first column left-aligned, the others (figures) right-aligned. */
export function table(head: string[], rows: string[][]) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(head));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}
