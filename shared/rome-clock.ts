// Rome's wall clock (Europe/Rome), computed from the rule its clocks follow rather than looked up in
// Intl. A browser builds its first Intl formatter from ICU's data: 50 to 100 ms on this machine,
// four times that on the phone Lighthouse simulates, in one piece, while the page hydrates
// (issue 30). So the pages format Rome's dates themselves, and the services that bill by Rome's
// calendar use the same rule, so that what a page shows is what was charged.
//
// The rule is the EU's, Italy's since 1996: summer time (UTC+2) from 01:00 UTC on the last Sunday
// of March to 01:00 UTC on the last Sunday of October, UTC+1 otherwise. rome-clock.test.ts checks it
// against the time-zone database every day from 1996 to 2100: if the EU ever changes its clocks, that
// test fails when Node's database learns of it, and this is where the new rule goes.

const HOUR_MS = 3_600_000;

/** 01:00 UTC on the last Sunday of a month (0-based), the moment the EU's clocks change. */
function lastSundayAtOneUtc(year: number, month: number): number {
  const weekdayOfLastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDay();
  return Date.UTC(year, month + 1, -weekdayOfLastDay, 1);
}

/** Rome's offset from UTC at an instant, in milliseconds. */
export function romeOffsetMs(instant: number): number {
  const year = new Date(instant).getUTCFullYear();
  const summer = instant >= lastSundayAtOneUtc(year, 2) && instant < lastSundayAtOneUtc(year, 9);
  return summer ? 2 * HOUR_MS : HOUR_MS;
}

/** The wall-clock time in Rome of an instant, as the fields of a UTC date. */
export function romeWallClock(instant: Date): Date {
  return new Date(instant.getTime() + romeOffsetMs(instant.getTime()));
}

/** The day an instant falls on in Rome, as YYYY-MM-DD. */
export function romeDay(instant: Date): string {
  return romeWallClock(instant).toISOString().slice(0, 10);
}

/** The instant at which Rome's clocks show the given wall-clock time (its fields read as UTC). */
export function fromRomeWallClock(wall: Date): Date {
  // Rome is UTC+1 or UTC+2: guess with the offset of the guess itself, then correct once.
  let instant = new Date(wall.getTime() - (romeWallClock(wall).getTime() - wall.getTime()));
  const drift = romeWallClock(instant).getTime() - wall.getTime();
  if (drift !== 0) instant = new Date(instant.getTime() - drift);
  return instant;
}
