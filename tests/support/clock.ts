// The time every test with an injected clock starts from. The services under test read only
// that clock, never the system's, so a fixed start passes on any day the suite runs; times a
// test needs are said relative to it.
import { vi } from "vitest";

export const START = new Date("2026-11-23T10:00:00Z");
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** `ms` after the start (before it, when negative). */
export const afterStart = (ms: number) => new Date(START.getTime() + ms);

/** A calendar day `days` from the start, as the operators type it (YYYY-MM-DD, UTC). */
export const dayFromStart = (days: number) =>
  afterStart(days * DAY)
    .toISOString()
    .slice(0, 10);

/**
 * Runs `assertions` with the system's date moved far from today and from START. For tests of code
 * that reads no clock (it formats or compares the dates it is given): fixed dates are then sound on
 * any day, and the test fails should that code start reading `Date.now()` or `new Date()`.
 */
export function onAnotherDay(assertions: () => void) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2041-06-15T12:00:00Z"));
  try {
    assertions();
  } finally {
    vi.useRealTimers();
  }
}
