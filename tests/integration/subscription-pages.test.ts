// The EDU subscription's pages as a browser without JavaScript uses them: the section with the
// instalment and the next charge, 'Disdici' with its confirmation, 'Riattiva', 'Aggiorna carta'
// through the sandbox (3-D Secure included), 'Paga ora' when the bank wants the customer to
// authenticate, what the dashboard and the EDU page say, and that nobody reaches another's.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as dashboardRouteModule from "#app/routes/dashboard.tsx";
import * as eduRoute from "#app/routes/edu.tsx";
import * as myProductsRouteModule from "#app/routes/my-products.tsx";
import * as sandbox3dsModule from "#app/routes/sandbox-3ds.tsx";
import * as sandboxCharge3dsModule from "#app/routes/sandbox-charge-3ds.tsx";
import * as cardRouteModule from "#app/routes/subscription.card.tsx";
import * as subscriptionRouteModule from "#app/routes/subscription.tsx";
import { SUBSCRIPTION_MESSAGES as M } from "#shared/subscription-messages.ts";
import { createSessionStore } from "#server/accounts/sessions.ts";
import { mailOutbox, payments, subscriptions } from "#server/db/schema/index.ts";
import { SANDBOX_MESSAGES } from "#server/payments/sandbox-gateway.ts";
import type { Services } from "#server/services.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { SUBSCRIPTION_PATH } from "#shared/links.ts";
import { periodStart } from "#shared/subscription.ts";
import { futureExpiry } from "#tests/support/cards.ts";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { formPost, sessionCookieHeader, thrownResponse, toastOf } from "#tests/support/requests.ts";
import { createRouterContext } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { customerPage } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const dashboardRoute = customerPage(dashboardRouteModule);
const myProductsRoute = customerPage(myProductsRouteModule);
const sandbox3ds = customerPage(sandbox3dsModule);
const sandboxCharge3ds = customerPage(sandboxCharge3dsModule);
const cardRoute = customerPage(cardRouteModule);
const subscriptionRoute = customerPage(subscriptionRouteModule);

let database: TestDatabase;
let services: Services;
/** The services' clock: moved forward to the subscription's due dates. */
let clock = new Date();
const now = () => clock;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database, testConfig(), { now });
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

type Route = { loader?: (args: never) => unknown; action?: (args: never) => unknown };
const argsOf = (request: Request, params: Record<string, string>) =>
  ({ request, params, context: createRouterContext(services), url: new URL(request.url), pattern: "" }) as never;
const get = (route: Route, url: string, cookie: string, params: Record<string, string> = {}) =>
  route.loader!(argsOf(new Request(new URL(url, "http://localhost:3000"), { headers: { cookie } }), params));
const post = (route: Route, url: string, fields: Record<string, string>, cookie: string, params: Record<string, string> = {}) =>
  route.action!(argsOf(formPost(url, fields, cookie), params));

/** A customer who bought EDU at the checkout (now), with a session valid at the clock's time. */
async function subscriber(card = "4242 4242 4242 4242") {
  const { user } = await signedInCustomer(services, database.db);
  const opened = await services.checkout.open(user.id, EDU_PRODUCT_CODE);
  if (!opened.ok) throw new Error(opened.reason);
  const started = await services.payments.start(user.id, opened.orderId, checkoutDetails());
  if (!started.ok) throw new Error(started.reason);
  await services.sandbox!.confirmCard(started.setupId, card);
  await services.payments.settleSetup(started.setupId);
  return { userId: user.id, setupId: started.setupId, cookie: () => cookieOf(user.id) };
}
/** A fresh session at the services' time (the clock moves further than a session lives). */
async function cookieOf(userId: string) {
  const raw = await createSessionStore(database.db, now).create(userId, {
    accessToken: "at",
    accessTokenExpiresAt: new Date(clock.getTime() + 10 * 60_000),
    refreshToken: "rt",
    idToken: "it",
  });
  return sessionCookieHeader(raw);
}
async function subscriptionRow(userId: string) {
  const [row] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
  return row!;
}
async function paymentCount(userId: string) {
  return (await database.db.select().from(payments).where(eq(payments.userId, userId))).length;
}
/** Moves the clock to month `number`'s due date and lets the runner charge it. */
async function dueMonth(userId: string, number: number) {
  clock = periodStart((await subscriptionRow(userId)).anchorAt, number);
  await services.jobs.runDue();
}
const cardFields = (number: string) => ({ cc_name: "Maria Rossi", cc_number: number, cc_exp: futureExpiry(), cc_csc: "123" });

describe("the subscription's section", () => {
  it("shows the plan, 'rata 1 di 6', the next charge and the card; nobody else's", async () => {
    clock = new Date();
    const { userId, cookie } = await subscriber();
    const data = (await get(subscriptionRoute, SUBSCRIPTION_PATH, await cookie())) as Awaited<
      ReturnType<typeof subscriptionRoute.loader>
    >;
    expect(data.subscription).toMatchObject({
      status: "active",
      planName: "EDU - Abbonamento 6 mesi",
      instalment: 1,
      nextCharge: { amountCents: 450, instalment: 2 },
      card: { brand: "visa", last4: "4242" },
    });
    expect(data.subscription!.nextCharge!.at).toEqual(periodStart((await subscriptionRow(userId)).anchorAt, 2));
    expect(data.confirmingCancel).toBe(false);
    // /my-products/ leads to it.
    const mine = (await get(myProductsRoute, "/my-products/", await cookie())) as { subscription: unknown };
    expect(mine.subscription).toMatchObject({ status: "active" });

    const stranger = await signedInCustomer(services, database.db);
    const theirs = (await get(subscriptionRoute, SUBSCRIPTION_PATH, stranger.cookie)) as { subscription: unknown };
    expect(theirs.subscription).toBeNull();
    const refused = (await post(subscriptionRoute, SUBSCRIPTION_PATH, { intent: "cancel" }, stranger.cookie)) as {
      init: { status: number };
    };
    expect(refused.init.status).toBe(409);
    expect((await subscriptionRow(userId)).status).toBe("active");
  });

  it("'Disdici' asks first, then cancels; 'Riattiva' while the paid month lasts", async () => {
    clock = new Date();
    const { userId, cookie } = await subscriber();
    const asking = (await get(subscriptionRoute, `${SUBSCRIPTION_PATH}?disdici`, await cookie())) as {
      confirmingCancel: boolean;
    };
    expect(asking.confirmingCancel).toBe(true);
    expect((await subscriptionRow(userId)).status).toBe("active"); // a GET changes nothing

    const cancelled = (await post(subscriptionRoute, SUBSCRIPTION_PATH, { intent: "cancel" }, await cookie())) as Response;
    expect(cancelled.status).toBe(302);
    expect(cancelled.headers.get("location")).toBe(SUBSCRIPTION_PATH);
    expect(await toastOf(services.flash, cancelled)).toMatchObject({ title: M.cancelled });
    expect((await subscriptionRow(userId)).status).toBe("cancelled");
    const again = (await post(subscriptionRoute, SUBSCRIPTION_PATH, { intent: "cancel" }, await cookie())) as {
      init: { status: number };
    };
    expect(again.init.status).toBe(409);

    const resumed = (await post(subscriptionRoute, SUBSCRIPTION_PATH, { intent: "resume" }, await cookie())) as Response;
    expect(await toastOf(services.flash, resumed)).toMatchObject({ title: M.resumed });
    expect((await subscriptionRow(userId)).status).toBe("active");
  });

  it("refuses an unknown intent with a message, changing nothing", async () => {
    clock = new Date();
    const { userId, cookie } = await subscriber();
    const refused = (await post(subscriptionRoute, SUBSCRIPTION_PATH, { intent: "delete" }, await cookie())) as {
      data: { alert: { title: string } };
      init: { status: number };
    };
    expect(refused.init.status).toBe(400);
    expect(refused.data.alert.title).toBe(M.notPossible);
    expect((await subscriptionRow(userId)).status).toBe("active");
  });
});

describe("'Aggiorna carta' with the sandbox", () => {
  it("a good card: the subscription charges it from now on", async () => {
    clock = new Date();
    const { userId, setupId, cookie } = await subscriber();
    // A number that is no test card is refused by the sandbox, with its message, and changes nothing.
    const notATestCard = (await post(
      cardRoute,
      `${SUBSCRIPTION_PATH}carta/`,
      cardFields("5555 5555 5555 4444"),
      await cookie(),
    )) as {
      data: { alert: unknown };
    };
    expect(notATestCard.data.alert).toEqual({ title: M.cardNotSaved, text: SANDBOX_MESSAGES.notATestCard });
    expect((await subscriptionRow(userId)).setupId).toBe(setupId);
    const response = await thrownResponse(
      post(cardRoute, `${SUBSCRIPTION_PATH}carta/`, cardFields("4242 4242 4242 4242"), await cookie()) as Promise<unknown>,
    );
    const back = response.headers.get("location")!;
    expect(back).toMatch(/^\/my-products\/abbonamento\/carta\/\?setup_intent=sbx_seti_/);
    const done = await thrownResponse(get(cardRoute, back, await cookie()) as Promise<unknown>);
    expect(done.headers.get("location")).toBe(SUBSCRIPTION_PATH);
    expect(await toastOf(services.flash, done)).toMatchObject({ title: M.cardUpdated });
    const sub = await subscriptionRow(userId);
    expect(sub.setupId).not.toBe(setupId);
    expect(sub.setupId).toBe(new URL(back, "http://x").searchParams.get("setup_intent"));
    // Reading the return again changes nothing; another customer's return is refused.
    await thrownResponse(get(cardRoute, back, await cookie()) as Promise<unknown>);
    const stranger = await signedInCustomer(services, database.db);
    const refused = await thrownResponse(get(cardRoute, back, stranger.cookie) as Promise<unknown>);
    expect(refused.headers.get("location")).toBe(`${SUBSCRIPTION_PATH}carta/`);
  });

  it("a card with 3-D Secure goes through the sandbox's page; a bad form is refused field by field", async () => {
    clock = new Date();
    const { userId, cookie } = await subscriber();
    const refused = (await post(cardRoute, `${SUBSCRIPTION_PATH}carta/`, cardFields(""), await cookie())) as {
      data: { fieldErrors: Record<string, string> };
    };
    expect(Object.keys(refused.data.fieldErrors)).toContain("cc_number");
    const to3ds = await thrownResponse(
      post(cardRoute, `${SUBSCRIPTION_PATH}carta/`, cardFields("4000 0025 0000 3155"), await cookie()) as Promise<unknown>,
    );
    const page = to3ds.headers.get("location")!;
    const setup = page.split("/")[4]!;
    expect(page).toBe(`/pagamenti/prova/3ds/${setup}/`);
    const approved = await thrownResponse(
      post(sandbox3ds, page, { decision: "approve" }, await cookie(), { setup }) as Promise<unknown>,
    );
    const done = await thrownResponse(get(cardRoute, approved.headers.get("location")!, await cookie()) as Promise<unknown>);
    expect(await toastOf(services.flash, done)).toMatchObject({ title: M.cardUpdated });
    expect((await subscriptionRow(userId)).setupId).toBe(setup);
  });

  it("while a charge is failing: the new card pays the month at once", async () => {
    clock = new Date();
    const { userId, setupId, cookie } = await subscriber();
    await services.sandbox!.simulateSavedCard(setupId, "declined");
    await dueMonth(userId, 2);
    expect((await subscriptionRow(userId)).status).toBe("past_due");
    const dashboard = (await get(dashboardRoute, "/dashboard/", await cookie())) as { subscriptionNotice: unknown };
    expect(dashboard.subscriptionNotice).toEqual({ kind: "past_due" });
    const edu = (await get(eduRoute, "/edu/", await cookie())) as { pastDue: boolean; eduActiveUntil: unknown };
    expect(edu).toMatchObject({ pastDue: true, eduActiveUntil: null });

    const response = await thrownResponse(
      post(cardRoute, `${SUBSCRIPTION_PATH}carta/`, cardFields("4242 4242 4242 4242"), await cookie()) as Promise<unknown>,
    );
    const done = await thrownResponse(get(cardRoute, response.headers.get("location")!, await cookie()) as Promise<unknown>);
    expect(await toastOf(services.flash, done)).toMatchObject({ title: M.paid });
    expect((await subscriptionRow(userId)).status).toBe("active");
    expect(await paymentCount(userId)).toBe(2);
  });
});

describe("'Paga ora' when the bank wants the customer", () => {
  it("the month fails off-session with a mail asking to confirm; paid on the bank's page; only by its customer", async () => {
    clock = new Date();
    const { userId, setupId, cookie } = await subscriber();
    await services.sandbox!.simulateSavedCard(setupId, "authentication_required");
    await dueMonth(userId, 2);
    expect((await subscriptionRow(userId)).status).toBe("past_due");
    const mails = await database.db.select().from(mailOutbox).where(eq(mailOutbox.userId, userId));
    expect(mails.map((m) => m.subject)).toContain("Conferma il pagamento del tuo abbonamento EDU");

    const toBank = await thrownResponse(
      post(subscriptionRoute, SUBSCRIPTION_PATH, { intent: "pay" }, await cookie()) as Promise<unknown>,
    );
    expect(toBank.status).toBe(303);
    const page = toBank.headers.get("location")!;
    const charge = page.split("/")[4]!;
    expect(page).toBe(`/pagamenti/prova/3ds-addebito/${charge}/`);
    expect(await get(sandboxCharge3ds, page, await cookie(), { charge })).toBeNull();
    const stranger = await signedInCustomer(services, database.db);
    const away = await thrownResponse(
      get(sandboxCharge3ds, page, await cookieOf(stranger.user.id), { charge }) as Promise<unknown>,
    );
    expect(away.headers.get("location")).toBe("/");

    const back = await thrownResponse(
      post(sandboxCharge3ds, page, { decision: "approve" }, await cookie(), { charge }) as Promise<unknown>,
    );
    expect(back.headers.get("location")).toBe(`${SUBSCRIPTION_PATH}?payment_intent=${charge}`);
    const done = await thrownResponse(get(subscriptionRoute, back.headers.get("location")!, await cookie()) as Promise<unknown>);
    expect(await toastOf(services.flash, done)).toMatchObject({ title: M.paid });
    expect((await subscriptionRow(userId)).status).toBe("active");
    expect(await paymentCount(userId)).toBe(2);
    // The return read again records nothing more.
    await thrownResponse(get(subscriptionRoute, back.headers.get("location")!, await cookie()) as Promise<unknown>);
    expect(await paymentCount(userId)).toBe(2);
  });

  it("a customer who leaves the bank's page: the charge is cancelled before the next try, never paid twice", async () => {
    clock = new Date();
    const { userId, setupId, cookie } = await subscriber();
    await services.sandbox!.simulateSavedCard(setupId, "authentication_required");
    await dueMonth(userId, 2);
    const toBank = await thrownResponse(
      post(subscriptionRoute, SUBSCRIPTION_PATH, { intent: "pay" }, await cookie()) as Promise<unknown>,
    );
    const page = toBank.headers.get("location")!;
    const charge = page.split("/")[4]!;
    // 31 minutes later their claim has lapsed: the runner cancels that charge and records the try.
    clock = new Date(clock.getTime() + 31 * 60_000);
    await services.jobs.runDue();
    expect(await services.sandbox!.chargeAwaitsAuthentication(charge)).toBe(false);
    // Approving it now takes no money.
    await thrownResponse(
      post(sandboxCharge3ds, page, { decision: "approve" }, await cookie(), { charge }) as Promise<unknown>,
    ).catch(() => undefined);
    expect(await paymentCount(userId)).toBe(1);
    expect((await subscriptionRow(userId)).status).toBe("past_due");
  });
});
