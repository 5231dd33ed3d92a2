// The time every test with an injected clock starts from. The services under test read only
// that clock, never the system's, so a fixed start passes on any day the suite runs; times a
// test needs are said relative to it.
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
