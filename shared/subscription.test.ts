import { describe, expect, it } from "vitest";
import {
  DAY_MS,
  INSTALMENTS_PER_TERM,
  instalmentOf,
  nextRetryAt,
  periodStart,
  RENEWAL_NOTICE_DAYS,
  RETRY_AFTER_DAYS,
  SUBSCRIPTION_STATUSES,
  termOf,
} from "./subscription.ts";

// Fixed calendar dates are fine here: these are pure functions of their inputs, not of the clock.

/** "31/01/2026 10:00:00": an instant as Rome's clocks show it. */
const romeFormat = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Europe/Rome",
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const rome = (instant: Date) => romeFormat.format(instant).replace(",", "");

/** Rome's UTC offset at an instant, e.g. "GMT+1" or "GMT+2". */
const romeOffset = (instant: Date) =>
  new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Rome", timeZoneName: "shortOffset" })
    .formatToParts(instant)
    .find((part) => part.type === "timeZoneName")!.value;

const daysInMonth = (year: number, monthIndex: number) => new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();

describe("periodStart", () => {
  it("starts period 1 at the anchor itself, to the millisecond", () => {
    for (const iso of ["2026-01-31T09:00:00.000Z", "2026-02-28T23:30:00.000Z", "2026-07-15T07:12:34.567Z"]) {
      const anchor = new Date(iso);
      expect(periodStart(anchor, 1).toISOString()).toBe(iso);
    }
  });

  it("clamps an anchor on the 31st to the last day of shorter months, and returns to the 31st after them (non-leap year)", () => {
    const anchor = new Date("2026-01-31T09:00:00Z"); // 31 January 2026, 10:00 in Rome (CET)
    const starts = Array.from({ length: 13 }, (_, i) => rome(periodStart(anchor, i + 1)));
    expect(starts).toEqual([
      "31/01/2026 10:00:00",
      "28/02/2026 10:00:00",
      "31/03/2026 10:00:00",
      "30/04/2026 10:00:00",
      "31/05/2026 10:00:00",
      "30/06/2026 10:00:00",
      "31/07/2026 10:00:00",
      "31/08/2026 10:00:00",
      "30/09/2026 10:00:00",
      "31/10/2026 10:00:00",
      "30/11/2026 10:00:00",
      "31/12/2026 10:00:00",
      "31/01/2027 10:00:00",
    ]);
    // The instants themselves: 10:00 CET is 09:00Z, 10:00 CEST is 08:00Z.
    expect(periodStart(anchor, 2).toISOString()).toBe("2026-02-28T09:00:00.000Z");
    expect(periodStart(anchor, 3).toISOString()).toBe("2026-03-31T08:00:00.000Z");
    expect(periodStart(anchor, 4).toISOString()).toBe("2026-04-30T08:00:00.000Z");
    expect(periodStart(anchor, 10).toISOString()).toBe("2026-10-31T09:00:00.000Z");
  });

  it("clamps to 29 February in a leap year", () => {
    const anchor = new Date("2028-01-31T09:00:00Z"); // 31 January 2028, 10:00 in Rome
    expect(periodStart(anchor, 2).toISOString()).toBe("2028-02-29T09:00:00.000Z");
    expect(periodStart(anchor, 3).toISOString()).toBe("2028-03-31T08:00:00.000Z");
    expect(rome(periodStart(anchor, 4))).toBe("30/04/2028 10:00:00");
  });

  it("counts every month from the anchor instead of chaining from the previous period", () => {
    // Chained, 31 Jan → 28 Feb would stay on the 28th ever after; 30 Jan likewise.
    const on30th = new Date("2026-01-30T09:00:00Z");
    expect(rome(periodStart(on30th, 2))).toBe("28/02/2026 10:00:00");
    expect(rome(periodStart(on30th, 3))).toBe("30/03/2026 10:00:00");
    const on29Feb = new Date("2028-02-29T09:00:00Z"); // a leap-day anchor
    expect(rome(periodStart(on29Feb, 2))).toBe("29/03/2028 10:00:00");
    expect(rome(periodStart(on29Feb, 13))).toBe("28/02/2029 10:00:00");
  });

  it("starts month 13 on the same day and hour one year later", () => {
    for (const iso of ["2026-03-15T13:45:00Z", "2026-08-01T06:00:00Z", "2026-12-31T22:59:59Z"]) {
      const anchor = new Date(iso);
      const [day, hour] = rome(anchor).split(" ") as [string, string];
      const [dd, mm, yyyy] = day.split("/");
      expect(rome(periodStart(anchor, 13))).toBe(`${dd}/${mm}/${Number(yyyy) + 1} ${hour}`);
    }
  });

  it("keeps an anchor at 00:30 on the 1st in Rome (still the previous day in UTC) on the 1st", () => {
    const anchor = new Date("2026-02-28T23:30:00Z"); // 1 March 2026, 00:30 in Rome
    expect(rome(anchor)).toBe("01/03/2026 00:30:00");
    expect(periodStart(anchor, 2).toISOString()).toBe("2026-03-31T22:30:00.000Z"); // 1 April, 00:30 CEST
    expect(periodStart(anchor, 9).toISOString()).toBe("2026-10-31T23:30:00.000Z"); // 1 November, 00:30 CET
    for (let n = 1; n <= 13; n++) {
      expect(rome(periodStart(anchor, n))).toMatch(/^01\/\d\d\/\d{4} 00:30:00$/);
    }
  });

  it("keeps the Rome hour across the change to summer time, and back", () => {
    const winter = new Date("2026-01-15T08:00:00Z"); // 15 January, 09:00 CET
    expect(romeOffset(winter)).toBe("GMT+1");
    const summerStart = periodStart(winter, 6); // 15 June
    expect(romeOffset(summerStart)).toBe("GMT+2");
    expect(rome(summerStart)).toBe("15/06/2026 09:00:00");
    expect(summerStart.toISOString()).toBe("2026-06-15T07:00:00.000Z");

    const summer = new Date("2026-07-15T07:00:00Z"); // 15 July, 09:00 CEST
    const winterStart = periodStart(summer, 5); // 15 November
    expect(romeOffset(winterStart)).toBe("GMT+1");
    expect(rome(winterStart)).toBe("15/11/2026 09:00:00");
    expect(winterStart.toISOString()).toBe("2026-11-15T08:00:00.000Z");
  });

  it("stays on the right Rome day when the anchor's hour does not exist or occurs twice that day", () => {
    // 29 March 2026: clocks jump from 02:00 to 03:00, so 02:30 does not exist; the start moves to 03:30.
    const skipped = periodStart(new Date("2026-01-29T01:30:00Z"), 3);
    expect(rome(skipped)).toBe("29/03/2026 03:30:00");
    // 25 October 2026: clocks go back from 03:00 to 02:00, so 02:30 happens twice; either is 02:30 in Rome.
    const repeated = periodStart(new Date("2026-01-25T01:30:00Z"), 10);
    expect(rome(repeated)).toBe("25/10/2026 02:30:00");
  });

  it("for anchors on the 28th to the 31st at any hour, gives the anchor's day (or the month's last) at the anchor's Rome time", () => {
    const anchors = ["2026-01-28T23:15:00Z", "2026-01-29T00:00:00Z", "2026-05-30T21:59:59Z", "2027-08-31T11:00:00Z"];
    for (const iso of anchors) {
      const anchor = new Date(iso);
      const [day, time] = rome(anchor).split(" ") as [string, string];
      const [dd, mm, yyyy] = day.split("/").map(Number) as [number, number, number];
      for (let n = 1; n <= 25; n++) {
        const monthIndex = mm - 1 + n - 1;
        const year = yyyy + Math.floor(monthIndex / 12);
        const month = (monthIndex % 12) + 1;
        const expectedDay = Math.min(dd, daysInMonth(year, month - 1));
        const expected = `${String(expectedDay).padStart(2, "0")}/${String(month).padStart(2, "0")}/${year} ${time}`;
        expect(rome(periodStart(anchor, n)), `${iso}, period ${n}`).toBe(expected);
      }
    }
  });

  it("does not change the anchor", () => {
    const anchor = new Date("2026-01-31T09:00:00Z");
    periodStart(anchor, 7);
    expect(anchor.toISOString()).toBe("2026-01-31T09:00:00.000Z");
  });
});

describe("instalments and terms", () => {
  it("numbers the instalments 1 to 6 within each term", () => {
    const periods = Array.from({ length: 13 }, (_, i) => i + 1);
    expect(periods.map(instalmentOf)).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1]);
  });

  it("puts periods 1-6 in term 1, 7-12 in term 2, 13 in term 3", () => {
    const periods = Array.from({ length: 13 }, (_, i) => i + 1);
    expect(periods.map(termOf)).toEqual([1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3]);
    expect(termOf(18)).toBe(3);
    expect(termOf(19)).toBe(4);
  });
});

describe("nextRetryAt", () => {
  const dueAt = new Date("2026-05-10T08:00:00Z");

  it("retries 1, 3 and 7 days after the due date, counted from the due date each time", () => {
    expect(nextRetryAt(dueAt, 1)?.toISOString()).toBe("2026-05-11T08:00:00.000Z");
    expect(nextRetryAt(dueAt, 2)?.toISOString()).toBe("2026-05-13T08:00:00.000Z");
    expect(nextRetryAt(dueAt, 3)?.toISOString()).toBe("2026-05-17T08:00:00.000Z");
  });

  it("keeps the hour of the day in Rome when the clocks change in between", () => {
    // Due 27 March 2026 at 10:00 in Rome (CET); Rome moves to CEST on the 29th.
    const beforeChange = new Date("2026-03-27T09:00:00Z");
    expect(nextRetryAt(beforeChange, 2)?.toISOString()).toBe("2026-03-30T08:00:00.000Z");
  });

  it("gives no retry after 3 failed tries (nor before any)", () => {
    expect(nextRetryAt(dueAt, 4)).toBeNull();
    expect(nextRetryAt(dueAt, 10)).toBeNull();
    expect(nextRetryAt(dueAt, 0)).toBeNull();
  });

  it("does not change the due date", () => {
    nextRetryAt(dueAt, 3);
    expect(dueAt.toISOString()).toBe("2026-05-10T08:00:00.000Z");
  });
});

describe("constants", () => {
  it("has 6 instalments a term, retries after 1, 3, 7 days, the renewal notice 7 days ahead", () => {
    expect(INSTALMENTS_PER_TERM).toBe(6);
    expect(RETRY_AFTER_DAYS).toEqual([1, 3, 7]);
    expect(RENEWAL_NOTICE_DAYS).toBe(7);
    expect(DAY_MS).toBe(24 * 60 * 60 * 1000);
    expect(SUBSCRIPTION_STATUSES).toEqual(["active", "past_due", "cancelled", "ended"]);
  });
});
