// A print run from the operator to the reader: 1 000 codes created by codes:create, exported to
// the printer's CSV, read back from it and every one redeemed through the JSON API by customers
// signed in as the app, the batch then showing 1 000 uses, and a code used twice refused.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachConcurrently } from "#server/lib/concurrently.ts";
import { codesCsv, createCodes, listBatches } from "#server/operators/codes.ts";
import type { Operator } from "#server/operators/context.ts";
import { MESSAGES } from "#shared/messages.ts";
import { apiClient, loadManifests, signInApp } from "#tests/support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

const EBOOK = "EB-9788828813217";
const CUSTOMERS = 10;

let database: TestDatabase;
let portal: Portal;
let folder: string;

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  folder = mkdtempSync(path.join(tmpdir(), "codici-"));
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

// A thousand activations over HTTP: about 20 s on a quiet machine, three times that on a busy one.
it("redeems through the API every one of 1 000 codes printed by codes:create, once", { timeout: 180_000 }, async () => {
  const operator: Operator = { db: database.db, services: portal.services, actor: "operator:test" };
  const created = await createCodes(operator, { product: EBOOK, kind: "ebook", count: 1000, label: "Stampa API" });
  // The export, as the printer receives it, and the codes read back from it.
  const file = path.join(folder, "codici.csv");
  writeFileSync(file, codesCsv(created.codes));
  const [header, ...codes] = readFileSync(file, "utf8").trimEnd().split("\n");
  expect(header).toBe("code");
  expect(new Set(codes).size).toBe(1000);

  const modules = await loadManifests(portal.origin);
  const clients = await Promise.all(
    Array.from({ length: CUSTOMERS }, async (_, i) => {
      const customer = { email: `lettore.${i}@example.it`, password: "Segreta1!" };
      const registered = await portal.services.accounts.register({ ...customer, firstname: "Lettore", lastname: `N${i}` });
      if (!registered.ok) throw new Error("setup");
      return apiClient(modules, (await signInApp(portal.origin, customer)).access_token);
    }),
  );

  const answers: number[] = [];
  await forEachConcurrently(
    codes.map((code, i) => ({ code, call: clients[i % CUSTOMERS]! })),
    8,
    async ({ code, call }) => {
      const answer = await call("order", "order", "order_create_with_codiceattivazione", { params: { code } });
      answers.push(answer.status);
    },
  );
  expect(answers.filter((status) => status === 200)).toHaveLength(1000);

  const [batch] = (await listBatches(operator)).filter((b) => b.id === created.batchId);
  expect(batch).toMatchObject({ codes: 1000, uses: 1000 });
  // Used: again by its customer, or by another.
  const again = await clients[0]!("order", "order", "order_create_with_codiceattivazione", { params: { code: codes[0]! } });
  expect(again).toMatchObject({ status: 409, body: { error: { description: MESSAGES.activationAlreadyRedeemed } } });
  const taken = await clients[1]!("order", "order", "order_create_with_codiceattivazione", { params: { code: codes[0]! } });
  expect(taken).toMatchObject({ status: 404, body: { error: { description: MESSAGES.activationCodeInvalid } } });
  expect((await clients[0]!("order", "order", "order_verify_codiceattivazione", { params: { code: codes[999]! } })).body).toEqual(
    {
      result: false,
    },
  );
});
