// A whole purchase as a new customer lives it on a slow link (issue 30): Debian's Chromium with the
// network at Chrome DevTools' "Slow 3G" (400 ms RTT, 400 kbit/s each way), JavaScript off or on.
// Each step is timed from the customer's action (a link, a button, an address typed) to the next
// page's first paint: a new document's own first-contentful-paint, or, when the router renders the
// next page on the client, the moment its heading shows. Beside it, the step's floor: its bytes at
// 400 kbit/s plus one round trip for each exchange the step must wait for in turn (each document
// and redirect, each data request, one for the stylesheet and scripts fetched in parallel).
import { chromium, type CDPSession, type Locator, type Page } from "playwright-core";
import { futureExpiry } from "#tests/support/cards.ts";
import { CHROMIUM_ARGS, ensureChromium } from "#scripts/chromium.ts";

/** DevTools' Slow 3G. */
const RTT_MS = 400;
const BYTES_PER_SECOND = 400_000 / 8;

/**
 * The journey's budgets (ms, all steps together): what it took on this 2-core machine on 27
 * November 2026 (JavaScript off 11.4 s against a floor of 10.1 s; on, 15.8 s against 12.6 s),
 * with a fifth more for the machine's variation (docs/performance.md, "First paint on a
 * slow phone").
 */
export const JOURNEY_BUDGET_MS = { off: 14_000, on: 19_000 };

export type JourneyStep = { step: string; waitedMs: number; floorMs: number; bytes: number; roundTrips: number };

/**
 * The page's network, to weigh each step by what came before its paint: the bytes received, and
 * the exchanges waited for in turn (documents and their redirects, data requests), plus one for
 * the stylesheet and scripts when any came over the network (they come in parallel).
 */
function networkMeter(cdp: CDPSession, origin: string) {
  type Exchange = { sentAt: number; inTurn: boolean; subresource: boolean; counted: number };
  /** Every exchange since the last take; a redirect's hops are one each. */
  let exchanges: Exchange[] = [];
  /** The exchange under way of each request id (a redirect's next hop keeps the id). */
  const current = new Map<string, Exchange>();
  let received: { at: number; bytes: number; exchange: Exchange }[] = [];
  // CDP's timestamps are monotonic seconds; requestWillBeSent also gives the wall time.
  let wallOffsetMs = 0;
  const wall = (timestamp: number) => timestamp * 1000 + wallOffsetMs;
  const receive = (requestId: string, timestamp: number, bytes: number) => {
    const exchange = current.get(requestId);
    if (!exchange || bytes <= 0) return;
    exchange.counted += bytes;
    received.push({ at: wall(timestamp), bytes, exchange });
  };
  cdp.on("Network.requestWillBeSent", (event) => {
    wallOffsetMs = event.wallTime * 1000 - event.timestamp * 1000;
    if (!event.request.url.startsWith(origin)) return;
    const exchange = {
      sentAt: wall(event.timestamp),
      inTurn: event.type === "Document" || event.type === "Fetch",
      subresource: event.type === "Stylesheet" || event.type === "Script",
      counted: 0,
    };
    exchanges.push(exchange);
    current.set(event.requestId, exchange);
  });
  cdp.on("Network.dataReceived", (event) => receive(event.requestId, event.timestamp, event.encodedDataLength));
  cdp.on("Network.loadingFinished", (event) => {
    // Some responses report their bytes only here.
    receive(event.requestId, event.timestamp, event.encodedDataLength - (current.get(event.requestId)?.counted ?? 0));
  });
  return {
    /** What came before `paintedAt` (epoch ms) since the last call. */
    take(paintedAt: number) {
      const sent = exchanges.filter((e) => e.sentAt <= paintedAt);
      const before = received.filter((r) => r.at <= paintedAt);
      const taken = {
        bytes: before.reduce((sum, r) => sum + r.bytes, 0),
        roundTrips: sent.filter((e) => e.inTurn).length + (before.some((r) => r.exchange.subresource) ? 1 : 0),
      };
      exchanges = [];
      received = [];
      return taken;
    },
  };
}

/** When the page on screen was first painted (epoch ms), if it is a document loaded after `since`. */
function documentFirstPaint(page: Page, since: number): Promise<number | null> {
  return page.evaluate((since) => {
    const paint = performance.getEntriesByName("first-contentful-paint")[0];
    return paint && performance.timeOrigin >= since ? performance.timeOrigin + paint.startTime : null;
  }, since);
}

export async function walkJourney(origin: string, { javaScript }: { javaScript: boolean }): Promise<JourneyStep[]> {
  const browser = await chromium.launch({
    executablePath: ensureChromium().CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
  });
  const steps: JourneyStep[] = [];
  try {
    const context = await browser.newContext({ javaScriptEnabled: javaScript, baseURL: origin, locale: "it-IT" });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: RTT_MS,
      downloadThroughput: BYTES_PER_SECOND,
      uploadThroughput: BYTES_PER_SECOND,
    });
    const meter = networkMeter(cdp, origin);
    const main = page.getByRole("main");

    /** Times `act` until `shown` is visible: see the module's comment. */
    async function step(name: string, act: () => Promise<unknown>, shown: Locator) {
      // With JavaScript, the page acted on is interactive first (a customer waits for that too,
      // but it belongs to the step before).
      if (javaScript) await page.waitForLoadState("networkidle");
      meter.take(Number.POSITIVE_INFINITY);
      const started = Date.now();
      await act();
      await shown.waitFor({ state: "visible", timeout: 120_000 });
      const shownAt = Date.now();
      const painted = (await documentFirstPaint(page, started)) ?? shownAt;
      const { bytes, roundTrips } = meter.take(painted);
      steps.push({
        step: name,
        waitedMs: painted - started,
        floorMs: (bytes / BYTES_PER_SECOND) * 1000 + roundTrips * RTT_MS,
        bytes,
        roundTrips,
      });
    }
    const heading = (name: string | RegExp) => main.getByRole("heading", { name, level: 1 });

    const email = `lento.${Date.now()}@example.it`;
    const password = "Segreta1!";
    await step("the registration page", () => page.goto("/register/"), heading("Crea il tuo account"));
    await main.getByLabel("Nome", { exact: true }).fill("Giulia");
    await main.getByLabel("Cognome").fill("Lenti");
    await main.getByLabel("Email").fill(email);
    await main.getByLabel("Password", { exact: true }).fill(password);
    await main.getByRole("checkbox").check();
    await step(
      "'Crea account' → the login screen",
      () => main.getByRole("button", { name: "Crea account" }).click(),
      heading("Accedi"),
    );
    await main.getByLabel("Email").fill(email);
    await main.getByLabel("Password").fill(password);
    await step(
      "'Accedi' → first access",
      () => main.getByRole("button", { name: "Accedi" }).click(),
      heading("Completa il tuo profilo"),
    );
    await main.getByLabel("Studente").check();
    const university = main.getByRole("combobox", { name: "La tua università" });
    await step("'Continua' → the university", () => main.getByRole("button", { name: "Continua" }).click(), university);
    await university.selectOption({ index: 1 });
    const course = main.getByRole("combobox", { name: "Corso di laurea" });
    await step("'Continua' → the course", () => main.getByRole("button", { name: "Continua" }).click(), course);
    await course.selectOption({ index: 1 });
    await step("'Completa' → the dashboard", () => main.getByRole("button", { name: "Completa" }).click(), heading(/^Ciao, /));
    const buy = page.getByRole("button", { name: "Acquista ora" }).first();
    await step("EDU's page", () => page.goto("/edu/"), buy);
    await step("'Acquista ora' → the checkout", () => buy.click(), heading("Checkout"));
    for (const label of [
      "Ho letto e accetto le condizioni di vendita",
      "Ho letto e accetto le condizioni di recesso e cancellazione",
    ])
      await page.getByLabel(label).check();
    const card = page.locator("form#checkout");
    await card.getByLabel("Titolare della carta").fill("Giulia Lenti");
    await card.getByLabel("Numero della carta").fill("4242 4242 4242 4242");
    await card.getByLabel("Scadenza (MM/AA)").fill(futureExpiry());
    await card.getByLabel("Codice di sicurezza (CVC)").fill("123");
    await step(
      "'Completa l'acquisto' → 'Ordine confermato'",
      () => page.getByRole("button", { name: "Completa l'acquisto" }).click(),
      main.getByRole("heading", { name: "Ordine confermato" }),
    );
    await step("'Ricevuta' → the receipt", () => main.getByRole("link", { name: "Ricevuta" }).click(), heading(/^Ricevuta/));
    await context.close();
  } finally {
    await browser.close();
  }
  return steps;
}
