// codes:create, codes:batches and codes:disable: a print run of 1 000 codes read back from its CSV
// and every one activated, the batches' uses, and a withdrawn batch refused like an unknown code.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dayFromStart, START } from "#tests/support/clock.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { activationCodes } from "#server/db/schema/index.ts";
import { forEachConcurrently } from "#server/lib/concurrently.ts";
import { codesCsv, createCodes, disableBatch, listBatches } from "./codes.ts";
import { OperatorError } from "./context.ts";

const h = operatorHarness();
const EBOOK = "EB-9788828813217";
const IP = "203.0.113.7";

/** The printer's file as it reads it: the header, then the codes. */
function readCsv(csv: string): string[] {
  const [header, ...lines] = csv.trimEnd().split("\n");
  expect(header).toBe("code");
  return lines;
}

describe("codes:create", () => {
  // A thousand activations, one after another on PGlite: seconds alone, more on a busy CI machine.
  it("prints 1 000 codes into the CSV, each of which activates the product once", { timeout: 90_000 }, async () => {
    const created = await createCodes(h.op, { product: EBOOK, kind: "ebook", count: 1000, label: "Ristampa 2027" });
    const codes = readCsv(codesCsv(created.codes));
    expect(codes).toHaveLength(1000);
    expect(new Set(codes).size).toBe(1000);
    expect(await h.db.select().from(activationCodes).where(eq(activationCodes.batchId, created.batchId))).toHaveLength(1000);

    const customers = await Promise.all(Array.from({ length: 10 }, () => h.customer()));
    const activated: string[] = [];
    await forEachConcurrently(
      codes.map((code, i) => ({ code, userId: customers[i % customers.length]!.id })),
      5,
      async ({ code, userId }) => {
        const result = await h.services.library.activation.activate({ userId, ip: IP, code });
        if (result.ok) activated.push(code);
      },
    );
    expect(activated).toHaveLength(1000);

    const [batch] = (await listBatches(h.op)).filter((b) => b.id === created.batchId);
    expect(batch).toMatchObject({ sku: EBOOK, kind: "ebook", label: "Ristampa 2027", maxUses: 1, codes: 1000, uses: 1000 });

    // The audit log says what was printed, never a code.
    const [entry] = (await h.audited("codes_created")).filter(
      (e) => (e.details as { batchId: string }).batchId === created.batchId,
    );
    expect(entry!.details).toMatchObject({ product: EBOOK, kind: "ebook", count: 1000, maxUses: 1 });
    const logged = JSON.stringify(await h.audited("codes_created"));
    for (const code of codes) expect(logged).not.toContain(code);
  });

  it("makes --valid-until the last day the codes work, in Rome", async () => {
    // The last day of the harness clock's year: ahead of the clock, in winter time.
    const year = START.getUTCFullYear();
    const { codes, validUntil } = await createCodes(h.op, {
      product: EBOOK,
      kind: "ebook",
      count: 1,
      validUntil: `${year}-12-31`,
    });
    // Midnight in Rome (UTC+1 in winter) at the start of 1 January.
    const end = new Date(Date.UTC(year, 11, 31, 23));
    expect(validUntil).toEqual(end);
    const customer = await h.customer();
    const verify = (now: Date) => h.services.library.activation.verify({ userId: customer.id, ip: IP, code: codes[0]!, now });
    expect(await verify(new Date(end.getTime() - 1000))).toBe("valid");
    expect(await verify(end)).toBe("invalid");
  });

  it("refuses what cannot be printed, creating nothing", async () => {
    const before = (await listBatches(h.op)).length;
    const attempts = [
      { product: "NO-SUCH-SKU", kind: "ebook", count: 1 },
      { product: EBOOK, kind: "poster", count: 1 },
      { product: EBOOK, kind: "course", count: 1 },
      { product: EBOOK, kind: "ebook", count: 0 },
      { product: EBOOK, kind: "ebook", count: 1, maxUses: 0 },
      { product: EBOOK, kind: "ebook", count: 1, validUntil: `${START.getUTCFullYear() + 1}-02-30` },
      { product: EBOOK, kind: "ebook", count: 1, validUntil: dayFromStart(-1) },
    ];
    for (const input of attempts) await expect(createCodes(h.op, input)).rejects.toBeInstanceOf(OperatorError);
    expect(await listBatches(h.op)).toHaveLength(before);
  });
});

describe("codes:disable", () => {
  it("withdraws a batch: its codes are refused like unknown ones, those already activated keep their access", async () => {
    const { batchId, codes } = await createCodes(h.op, { product: EBOOK, kind: "ebook", count: 3 });
    const [first, second] = [await h.customer(), await h.customer()];
    const activation = h.services.library.activation;
    expect((await activation.activate({ userId: first.id, ip: IP, code: codes[0]! })).ok).toBe(true);

    h.advance(60_000);
    const result = await disableBatch(h.op, batchId);
    expect(result).toMatchObject({ batchId, alreadyDisabled: false });
    for (const code of codes.slice(1)) {
      expect(await activation.verify({ userId: second.id, ip: IP, code })).toBe("invalid");
      expect(await activation.activate({ userId: second.id, ip: IP, code })).toEqual({ ok: false, reason: "invalid" });
    }
    expect(await activation.verify({ userId: first.id, ip: IP, code: codes[0]! })).toBe("already_redeemed");

    // Once: a second run says since when.
    h.advance(60_000);
    expect(await disableBatch(h.op, batchId)).toEqual({ ...result, alreadyDisabled: true });
    const [listed] = (await listBatches(h.op)).filter((b) => b.id === batchId);
    expect(listed).toMatchObject({ disabledAt: result.disabledAt, uses: 1 });
    expect(
      (await h.audited("codes_disabled")).filter((e) => (e.details as { batchId: string }).batchId === batchId),
    ).toHaveLength(2);
  });

  it("says which batch it does not know", async () => {
    await expect(disableBatch(h.op, "not-a-batch")).rejects.toThrow(/not a batch id/);
    await expect(disableBatch(h.op, "00000000-0000-4000-8000-000000000000")).rejects.toThrow(/No batch/);
  });
});
