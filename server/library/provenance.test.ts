import { describe, expect, it } from "vitest";
import { START as NOW } from "#tests/support/clock.ts";
import { accessByProduct } from "./provenance.ts";

// accessByProduct reads no clock: "now" is given, so a fixed start holds on any day.
const day = (n: number) => new Date(NOW.getTime() + n * 86_400_000);

type Row = Parameters<typeof accessByProduct>[0][number];
function grant(name: string, startsAt: Date, expiresAt: Date | null, overrides: Partial<Row> = {}): Row {
  return {
    productId: `id-${name}`,
    name,
    typeName: "eBook",
    source: "activation_code",
    at: startsAt,
    orderCode: null,
    instalment: null,
    startsAt,
    expiresAt,
    ...overrides,
  };
}

describe("accessByProduct", () => {
  it("tells what gives access now: of grants running at once, the one lasting longest", () => {
    const [book] = accessByProduct(
      [grant("Libro", day(-30), day(150)), grant("Libro", day(-2), null, { source: "purchase", orderCode: "NX1" })],
      NOW,
    );
    expect(book).toMatchObject({ current: { source: "purchase", expiresAt: null }, next: [], ended: null });
  });

  it("tells what comes after it, in order, and only what lengthens the access", () => {
    const [edu] = accessByProduct(
      [
        grant("EDU", day(-10), day(20), { source: "subscription", instalment: 1 }),
        grant("EDU", day(20), day(200), { source: "activation_code" }),
        grant("EDU", day(200), day(290), { source: "operator" }),
        // Stacked inside the current month: nothing more.
        grant("EDU", day(5), day(15), { source: "operator" }),
      ],
      NOW,
    );
    expect(edu!.current).toMatchObject({ source: "subscription", instalment: 1 });
    expect(edu!.next.map((g) => [g.source, g.startsAt])).toEqual([
      ["activation_code", day(20)],
      ["operator", day(200)],
    ]);
    expect(edu!.ended).toBeNull();
  });

  it("tells what gave access last when it is over, and leaves out grants that gave nothing", () => {
    const [book] = accessByProduct(
      [
        grant("Libro", day(-400), day(-220)),
        grant("Libro", day(-200), day(-20), { source: "operator" }),
        // Revoked before it began.
        grant("Libro", day(-10), day(-10), { source: "purchase" }),
      ],
      NOW,
    );
    expect(book).toMatchObject({ current: null, next: [], ended: { source: "operator", expiresAt: day(-20) } });
    expect(accessByProduct([grant("Altro", day(3), day(3))], NOW)).toEqual([]);
  });

  it("a grant ending exactly now is over; one starting exactly now runs", () => {
    const [ended] = accessByProduct([grant("Libro", day(-30), NOW)], NOW);
    expect(ended).toMatchObject({ current: null, ended: { expiresAt: NOW } });
    const [starting] = accessByProduct([grant("Libro", NOW, day(30))], NOW);
    expect(starting).toMatchObject({ current: { startsAt: NOW }, ended: null });
  });

  it("lists products with access now or to come first, then those that ended, by name", () => {
    const names = accessByProduct(
      [
        grant("Zeta", day(-30), day(-1)),
        grant("Beta", day(-30), day(30)),
        grant("Alfa", day(-30), day(-1)),
        grant("Delta", day(10), day(30)),
      ],
      NOW,
    ).map((p) => p.name);
    expect(names).toEqual(["Beta", "Delta", "Alfa", "Zeta"]);
  });
});
