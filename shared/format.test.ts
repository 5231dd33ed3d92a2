import { describe, expect, it } from "vitest";
import { formatDate, formatLongDate, formatLongDateTime } from "./format.ts";

// What the pages wrote with Intl before they formatted by hand: the reference for every string.
const intl = {
  shortDate: new Intl.DateTimeFormat("it-IT", { day: "2-digit", month: "2-digit", year: "numeric", timeZone: "Europe/Rome" }),
  longDate: new Intl.DateTimeFormat("it-IT", { day: "numeric", month: "long", year: "numeric", timeZone: "Europe/Rome" }),
  time: new Intl.DateTimeFormat("it-IT", { hour: "2-digit", minute: "2-digit", timeZone: "Europe/Rome" }),
};

describe("Italian dates", () => {
  it("formats dates in Europe/Rome", () => {
    // 23:30 UTC on 11 March is already 12 March in Rome.
    expect(formatDate("2026-03-11T23:30:00Z")).toBe("12/03/2026");
    expect(formatLongDate("2026-03-11T23:30:00Z")).toBe("12 marzo 2026");
    expect(formatLongDateTime("2026-03-11T23:30:00Z")).toBe("12 marzo 2026 alle 00:30");
    // Summer time: 08:15 UTC is 10:15 in Rome.
    expect(formatLongDateTime("2026-07-01T08:15:00Z")).toBe("1 luglio 2026 alle 10:15");
  });

  it("writes every day and hour from 1996 to 2100 as Intl's it-IT formats in Europe/Rome do", () => {
    // Each day at the hours where Rome's date or offset can turn: around 01:00 UTC (the clocks'
    // change) and late in the UTC evening (already tomorrow in Rome).
    const hours = ["00:59:59.999", "01:00", "21:59", "22:00", "22:30", "23:00", "23:59"];
    for (let day = Date.UTC(1996, 0, 1); day < Date.UTC(2101, 0, 1); day += 86_400_000) {
      const iso = new Date(day).toISOString().slice(0, 10);
      for (const hour of hours) {
        const at = new Date(`${iso}T${hour}Z`);
        const expected = [intl.shortDate.format(at), `${intl.longDate.format(at)} alle ${intl.time.format(at)}`];
        const actual = [formatDate(at), formatLongDateTime(at)];
        if (actual.join() !== expected.join()) expect(actual).toEqual(expected);
      }
    }
  });

  it("takes a date, an ISO string or a timestamp, and refuses an invalid one as Intl does", () => {
    const at = "2026-11-27T19:00:00Z";
    expect(formatLongDate(new Date(at))).toBe("27 novembre 2026");
    expect(formatLongDate(Date.parse(at))).toBe("27 novembre 2026");
    expect(() => formatDate("not a date")).toThrow(RangeError);
  });
});
