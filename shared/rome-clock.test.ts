import { describe, expect, it } from "vitest";
import { fromRomeWallClock, romeDay, romeOffsetMs, romeWallClock } from "./rome-clock.ts";

const HOUR_MS = 3_600_000;
/** Rome's offset from UTC at an instant as the time-zone database has it (Node's ICU), in ms. */
const tzdata = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Rome", timeZoneName: "longOffset" });
const tzdataOffsetMs = (instant: number) => {
  const name = tzdata.formatToParts(instant).find((p) => p.type === "timeZoneName")!.value; // "GMT+02:00"
  const [, sign, hours, minutes] = /GMT([+-])(\d\d):(\d\d)/.exec(name)!;
  return (sign === "-" ? -1 : 1) * (Number(hours) * HOUR_MS + Number(minutes) * 60_000);
};

describe("Rome's clock", () => {
  it("follows the time-zone database at every moment the clocks could change, 1996 to 2100", () => {
    // The EU's clocks change at 01:00 UTC: a millisecond before it and at it, every day.
    for (let day = Date.UTC(1996, 0, 1); day < Date.UTC(2101, 0, 1); day += 86_400_000) {
      for (const at of [day + HOUR_MS - 1, day + HOUR_MS]) {
        if (romeOffsetMs(at) !== tzdataOffsetMs(at))
          expect([new Date(at), romeOffsetMs(at)]).toEqual([new Date(at), tzdataOffsetMs(at)]);
      }
    }
  });

  it("changes at 01:00 UTC on the last Sundays of March and October", () => {
    expect(romeWallClock(new Date("2026-03-29T00:59:59Z")).toISOString()).toBe("2026-03-29T01:59:59.000Z");
    expect(romeWallClock(new Date("2026-03-29T01:00:00Z")).toISOString()).toBe("2026-03-29T03:00:00.000Z");
    expect(romeWallClock(new Date("2026-10-25T00:59:59Z")).toISOString()).toBe("2026-10-25T02:59:59.000Z");
    expect(romeWallClock(new Date("2026-10-25T01:00:00Z")).toISOString()).toBe("2026-10-25T02:00:00.000Z");
  });

  it("gives Rome's day of an instant and the instant of a wall-clock time", () => {
    expect(romeDay(new Date("2026-12-31T23:30:00Z"))).toBe("2027-01-01");
    expect(fromRomeWallClock(new Date("2026-07-01T10:15:00Z")).toISOString()).toBe("2026-07-01T08:15:00.000Z");
    expect(fromRomeWallClock(new Date("2026-01-01T00:00:00Z")).toISOString()).toBe("2025-12-31T23:00:00.000Z");
  });
});
