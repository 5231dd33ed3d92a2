// Each refusal of the account's use-cases that both doors serve (save a profile, change the
// password, redeem an activation code) through the page's form, posted over HTTP as a browser
// without JavaScript posts it, and through the API with a bearer token: the same Italian message,
// the status of the use-case's refusal table. The cases are keyed by the tables' reasons, so a
// reason added to a table without a case here fails.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { products, users } from "#server/db/schema/index.ts";
import { ACTIVATION_REFUSALS, type ActivationRefusal } from "#shared/activation-refusals.ts";
import { MESSAGES } from "#shared/messages.ts";
import {
  PASSWORD_CHANGE_REFUSALS,
  PROFILE_SAVE_REFUSALS,
  type PasswordChangeRefusal,
  type ProfileSaveRefusal,
} from "#shared/profile-messages.ts";
import { PROFILE_LIMITS } from "#shared/profile-limits.ts";
import type { Refusal, RefusalTable } from "#shared/refusals.ts";
import { signInApp } from "#tests/support/api-client.ts";
import { sessionCookie } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";
import { seededReferenceIds, type ReferenceIds } from "#tests/support/reference-ids.ts";

const PASSWORD = "Segreta1!";
const NEW_PASSWORD = "Nuova1234!";

let database: TestDatabase;
let portal: Portal;
let ref: ReferenceIds;
let codes: string[];

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  ref = await seededReferenceIds(database.db);
  const [product] = await database.db.select().from(products).limit(1);
  ({ codes } = await portal.services.library.activation.createBatch({
    productId: product!.id,
    kind: "ebook",
    label: "porte",
    count: 3,
  }));
});

afterAll(async () => {
  vi.restoreAllMocks();
  await portal?.close();
  await database?.destroy();
});

type Customer = { id: string; email: string; cookie: string; token: string };

let customers = 0;
/** A student with a complete profile, signed in on the portal (a session) and in the app (a token). */
async function newCustomer(): Promise<Customer> {
  const email = `porte.${++customers}@example.it`;
  const registered = await portal.services.accounts.register({
    email,
    password: PASSWORD,
    firstname: "Maria",
    lastname: "Rossi",
  });
  if (!registered.ok) throw new Error("setup: registration failed");
  const { id } = registered.user;
  const completed = await portal.services.profiles.completeFirstAccess(id, {
    professionId: ref.student,
    universityId: ref.milano,
    degreeCourseId: ref.milanoCourse,
  });
  if (!completed.ok) throw new Error("setup: first access failed");
  const { access_token } = await signInApp(portal.origin, { email, password: PASSWORD });
  return { id, email, cookie: await sessionCookie(portal.services, database.db, id), token: access_token };
}

type Answer = { status: number; message: string };

/** The page's answer to its form: the status, and the page as a reader sees its text. */
async function postPage(path: string, customer: Customer, fields: Record<string, string>) {
  const response = await portal.fetch(path, {
    method: "POST",
    headers: { origin: portal.origin, cookie: customer.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, text: textOf(await response.text()) };
}

/** The text of an HTML page, its characters unescaped (React writes ' as &#x27;). */
function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The API's answer: its status and its error's description. */
async function callApi(path: string, customer: Customer, body?: unknown): Promise<Answer> {
  const response = await portal.fetch(`/api/v1/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${customer.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as { error?: { description: string } };
  return { status: response.status, message: answer.error?.description ?? "" };
}

/** A situation that makes the use-case refuse, as each door is asked. */
type Case = {
  name: string;
  /** Brings the customer (and the services) into the situation; what the doors answer is the same. */
  arrange?: (customer: Customer) => Promise<void>;
  page: (customer: Customer) => Promise<{ status: number; text: string }>;
  api: (customer: Customer) => Promise<Answer>;
  /** The message both doors show, when the table's says more than this (what was refused, when to retry). */
  message?: string;
};

/**
 * Runs every reason of a table through both doors: each door answers the table's status, the page
 * shows the message, and the API's description is that message.
 */
function bothDoors<R extends string>(table: RefusalTable<R>, cases: Record<R, Case[]>) {
  const reasons = Object.keys(table) as R[];
  it("has a case for every reason of the table", () => {
    for (const reason of reasons) expect(cases[reason]?.length ?? 0, reason).toBeGreaterThan(0);
  });
  for (const reason of reasons) {
    const refusal: Refusal = table[reason];
    for (const one of cases[reason] ?? []) {
      it(`${reason}: ${one.name}`, async () => {
        const [forPage, forApi] = [await newCustomer(), await newCustomer()];
        await one.arrange?.(forPage);
        const page = await one.page(forPage);
        await one.arrange?.(forApi);
        const api = await one.api(forApi);
        const message = one.message ?? refusal.message;
        expect({ status: page.status, shown: page.text.includes(message) }).toEqual({ status: refusal.status, shown: true });
        expect(api).toEqual({ status: refusal.status, message });
      });
    }
  }
}

type Services = Portal["services"];

/**
 * The service's next answer, as it would be in a race the doors cannot stage (the account
 * deleted meanwhile) or for a check the forms make first: the doors' reading of it is what runs.
 */
function serviceAnswers<N extends "profiles" | "passwordChanges">(name: N, method: keyof Services[N], outcome: unknown) {
  return async () => {
    vi.spyOn(portal.services[name], method as never).mockResolvedValueOnce(outcome as never);
  };
}

describe("saving a profile", () => {
  const save = (customer: Customer, fields: Record<string, string>) => postPage("/profile/", customer, fields);
  const saveApi = (customer: Customer, body: Record<string, unknown>) =>
    callApi("aaa/user/save/", customer, { uuid: customer.id, ...body });

  bothDoors<ProfileSaveRefusal>(PROFILE_SAVE_REFUSALS, {
    invalid: [
      {
        name: "another profession than the one set",
        page: (c) => save(c, { profession: ref.professor, subject: ref.subject }),
        api: (c) => saveApi(c, { professione: ref.professor, materia: ref.subject }),
        message: MESSAGES.professionLocked,
      },
      {
        name: "a degree course of another university",
        page: (c) => save(c, { university: ref.bologna, degreeCourse: ref.milanoCourse }),
        api: (c) => saveApi(c, { universita: ref.bologna, corsolaurea: ref.milanoCourse }),
        message: MESSAGES.degreeCourseMismatch,
      },
      {
        name: "an emptied last name",
        page: (c) => save(c, { lastname: " " }),
        api: (c) => saveApi(c, { lastname: " " }),
        message: MESSAGES.lastnameRequired,
      },
    ],
    not_found: [
      {
        name: "the account deleted while saving",
        arrange: serviceAnswers("profiles", "update", { ok: false, reason: "not_found" }),
        page: (c) => save(c, { firstname: "Marta" }),
        api: (c) => saveApi(c, { firstname: "Marta" }),
      },
    ],
  });

  it("refuses a profession change on both doors without changing it", async () => {
    const customer = await newCustomer();
    await save(customer, { profession: ref.professor });
    await saveApi(customer, { professione: ref.professor });
    const [row] = await database.db.select({ professionId: users.professionId }).from(users).where(eq(users.id, customer.id));
    expect(row!.professionId).toBe(ref.student);
  });

  it("takes names of the same length on both doors, and one rule for the e-mail", async () => {
    const customer = await newCustomer();
    const longest = "N".repeat(PROFILE_LIMITS.name);
    expect((await save(customer, { firstname: longest })).status).toBe(302);
    expect((await saveApi(customer, { firstname: longest })).status).toBe(200);
    for (const [fields, message] of [
      [{ firstname: `${longest}N` }, MESSAGES.fieldTooLong],
      [{ email: "non-una-email" }, MESSAGES.emailInvalid],
    ] as const) {
      const page = await save(customer, fields);
      expect({ status: page.status, shown: page.text.includes(message) }).toEqual({ status: 400, shown: true });
      expect(await saveApi(customer, fields)).toEqual({ status: 400, message });
    }
  });
});

describe("changing the password", () => {
  const change = (customer: Customer, currentPassword = PASSWORD) =>
    postPage("/profile/change-password/", customer, { currentPassword, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
  const changeApi = (customer: Customer, currentpassword = PASSWORD) =>
    callApi("aaa/user/changepassword/", customer, { uuid: customer.id, currentpassword, password: NEW_PASSWORD });

  /** Five wrong current passwords lock the account's sign-in. */
  async function lockSignIn(customer: Customer) {
    for (let i = 0; i < 5; i++) await changeApi(customer, "Sbagliata1!");
  }

  bothDoors<PasswordChangeRefusal>(PASSWORD_CHANGE_REFUSALS, {
    wrong_password: [
      { name: "a wrong current password", page: (c) => change(c, "Sbagliata1!"), api: (c) => changeApi(c, "Sbagliata1!") },
    ],
    invalid_password: [
      {
        name: "a new password the service refuses",
        arrange: serviceAnswers("passwordChanges", "change", { ok: false, reason: "invalid_password" }),
        page: (c) => change(c),
        api: (c) => changeApi(c),
      },
    ],
    unknown_user: [
      {
        name: "the account deleted while changing",
        arrange: serviceAnswers("passwordChanges", "change", { ok: false, reason: "unknown_user" }),
        page: (c) => change(c),
        api: (c) => changeApi(c),
      },
    ],
    locked: [
      {
        name: "the sign-in locked by wrong passwords",
        arrange: lockSignIn,
        page: (c) => change(c),
        api: (c) => changeApi(c),
        // Both say when to try again: five failures lock the sign-in for a minute.
        message: `${MESSAGES.currentPasswordLocked} ${MESSAGES.retryAfter(60)}`,
      },
    ],
  });
});

describe("redeeming an activation code", () => {
  const activate = (customer: Customer, code: string) => postPage("/prodotti/attiva", customer, { intent: "activate", code });
  const activateApi = (customer: Customer, code: string) =>
    callApi(`order/order/create_with_codiceattivazione/${encodeURIComponent(code)}/`, customer);

  const redeemed = new Map<string, string>();

  bothDoors<ActivationRefusal>(ACTIVATION_REFUSALS, {
    invalid: [
      {
        name: "a code that does not exist",
        page: (c) => activate(c, "ABCD-EFGH-JKMN-PQRS"),
        api: (c) => activateApi(c, "ABCD-EFGH-JKMN-PQRS"),
      },
    ],
    already_redeemed: [
      {
        name: "a code the customer has activated before",
        arrange: async (c) => {
          // A code is good for one customer: each door's customer activates one of their own.
          const code = codes.pop()!;
          const done = await portal.services.library.activation.activate({ userId: c.id, ip: undefined, code });
          if (!done.ok) throw new Error(`setup: ${done.reason}`);
          redeemed.set(c.id, code);
        },
        page: (c) => activate(c, redeemed.get(c.id)!),
        api: (c) => activateApi(c, redeemed.get(c.id)!),
      },
    ],
  });
});
