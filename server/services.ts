// The back-end services, created once at start-up and handed to every request through the
// React Router context.
import { createPasswordChanges } from "./accounts/password-change.ts";
import { passwordHasher } from "./accounts/passwords.ts";
import { createProfiles } from "./accounts/profile.ts";
import { createPasswordLinks } from "./accounts/password-links.ts";
import { createPasswordResets } from "./accounts/password-resets.ts";
import { createRegistration } from "./accounts/registration.ts";
import { createAccountsService } from "./accounts/service.ts";
import { createSignIn } from "./accounts/sign-in.ts";
import { createEmailChanges } from "./accounts/email-changes.ts";
import { createSessionStore } from "./accounts/sessions.ts";
import { createDevices } from "./accounts/devices.ts";
import { createDataExports } from "./accounts/data-export.ts";
import { createAccessTokens } from "./identity/access-tokens.ts";
import { createAuditLog } from "./audit/service.ts";
import { createReferenceData } from "./catalog/reference.ts";
import { createCatalogService } from "./catalog/service.ts";
import { createProductCatalog } from "./catalog/products.ts";
import type { Config } from "./config.ts";
import { createContentService } from "./content/service.ts";
import type { DatabaseHandle } from "./db/client.ts";
import type { JWK } from "jose";
import { loadSigningKeys } from "./identity/keys.ts";
import { createIdentityProvider } from "./identity/provider.ts";
import { createRelyingParty } from "./identity/relying-party.ts";
import { createIdentityService } from "./identity/service.ts";
import { createSocialLogin } from "./identity/social-login.ts";
import { systemClock, type Clock, type ShiftableClock } from "./lib/clock.ts";
import { createOwnProviderCheck } from "./identity/own-provider-check.ts";
import { createFlashToasts } from "./lib/flash-toast.ts";
import type { Logger } from "./logger.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { readBacklogs, type Backlogs } from "./db/backlogs.ts";
import { createActivation } from "./commerce/activation.ts";
import { createLibraryDashboard } from "./library/dashboard.ts";
import { createProvenance } from "./library/provenance.ts";
import { createReading } from "./library/reading.ts";
import { createPurchases } from "./commerce/purchases.ts";
import { createCheckout } from "./commerce/checkout.ts";
import { subscriptionNoticeOf } from "./commerce/subscription-records.ts";
import { abandonedOrderSweep } from "./commerce/order-expiry.ts";
import { createCustomerOrders } from "./commerce/customer-orders.ts";
import { createSubscriptions } from "./commerce/subscriptions.ts";
import { createJobRunner } from "./jobs/runner.ts";
import { createInvoices } from "./invoices/service.ts";
import { createSdiInbox } from "./invoices/inbox.ts";
import { MAX_NOTIFICATION_BYTES } from "./invoices/sdi-messages.ts";
import { createSdiOutcomes } from "./invoices/sdi-outcomes.ts";
import { inboxFolder, outboxTransmitter } from "./invoices/transmitter.ts";
import { createMailService } from "./mail/service.ts";
import { createCardStep } from "./payments/card-step.ts";
import { createSandboxGateway } from "./payments/sandbox-gateway.ts";
import { createOrderPayments } from "./commerce/order-payments.ts";
import { startPayment, type StartPaymentInput } from "./commerce/start-payment.ts";
import { createRefunds } from "./payments/refunds.ts";
import { handleCustomerErasures } from "./payments/customer-erasure.ts";
import { createStripeCardStep } from "./payments/stripe-card-step.ts";
import { createStripeGateway, stripeClient } from "./payments/stripe-gateway.ts";
import { createStripeWebhooks } from "./payments/stripe-webhooks.ts";
import { createRateLimits } from "./security/rate-limits.ts";

export type ServiceOptions = {
  config: Config;
  database: DatabaseHandle;
  log: Logger;
  /** Every time a service writes or compares comes from here (tests fix it). */
  now?: Clock;
  /**
   * Whether this instance runs the job runner on a timer (the server does; tests and one-off
   * commands call `jobs.runDue()` themselves).
   */
  startBackgroundWork?: boolean;
  /** Development only: a clock moved forward from /dev/orologio (its `now` is then the services' clock). */
  devClock?: ShiftableClock | null;
  /** What the services count (server/metrics.ts); unset: counted where nobody reads it (tests, commands). */
  metrics?: Metrics;
};

/** How often each instance looks for payments left unsettled. */
const PAYMENT_RECONCILE_INTERVAL_MS = 60_000;
/** How often each instance runs the background jobs that are due (the subscription's charges, its mails). */
const JOB_RUNNER_INTERVAL_MS = 60_000;

/** The figures read at each scrape: the pool's connections, and what waits to be done (server/db/backlogs.ts). */
function observeBacklogs(metrics: Metrics, database: DatabaseHandle, now: Clock) {
  metrics.gauge(
    "portal_db_connections_in_use",
    "PostgreSQL connections of this instance's pool in use",
    () => database.poolState()?.inUse,
  );
  metrics.gauge(
    "portal_db_connections_waiting",
    "Queries of this instance waiting for a pooled connection",
    () => database.poolState()?.waiting,
  );
  // One statement per scrape, shared by the figures read from it.
  let reading: Promise<Backlogs> | null = null;
  const backlogs = () => (reading ??= readBacklogs(database.db, now()).finally(() => setTimeout(() => (reading = null))));
  const figures: [name: string, help: string, key: keyof Backlogs][] = [
    ["portal_jobs_due", "Background jobs due and not yet run", "jobsDue"],
    ["portal_jobs_oldest_due_age_seconds", "How long the oldest due job has waited", "oldestDueJobSeconds"],
    ["portal_jobs_given_up", "Background jobs given up after their last try", "jobsGivenUp"],
    ["portal_invoice_files_unsent", "E-invoice files not yet taken by the transmitter", "invoiceFilesUnsent"],
    [
      "portal_invoice_files_oldest_unsent_age_seconds",
      "How long the oldest unsent e-invoice file has waited",
      "oldestUnsentInvoiceFileSeconds",
    ],
    ["portal_invoice_files_rejected", "E-invoice files SDI rejected", "invoiceFilesRejected"],
    ["portal_mails_unsent", "Mails owed and not yet delivered", "mailsUnsent"],
    ["portal_mails_oldest_unsent_age_seconds", "How long the oldest undelivered mail has waited", "oldestUnsentMailSeconds"],
    ["portal_subscriptions_past_due", "EDU subscriptions whose month's charge is being tried again", "subscriptionsPastDue"],
  ];
  for (const [name, help, key] of figures) metrics.gauge(name, help, async () => (await backlogs())[key]);
}

export async function createServices({
  config,
  database,
  log,
  devClock = null,
  now = devClock?.now ?? systemClock,
  startBackgroundWork = false,
  metrics = createMetrics(),
}: ServiceOptions) {
  const { db } = database;
  const passwords = passwordHasher(config.passwordHashCost);
  const accounts = createAccountsService(db, now, passwords);
  const sessions = createSessionStore(db, now);
  const rateLimits = createRateLimits(db, {
    onPurgeError: (err) => log.warn({ err }, "rate limit purge failed"),
    onRefusal: (limit) => metrics.rateLimits.refusals.inc({ limit }),
  });
  // Keys given by configuration win; otherwise those generated at first start.
  const signingKeys = config.oidc.jwks?.keys ?? (await loadSigningKeys(db));
  const provider = createIdentityProvider({ config, db, accounts, signingKeys, now });
  const reference = createReferenceData(db);
  const jobs = createJobRunner({ db, log, now, metrics });
  const mail = createMailService({ db, ...config.mail, runner: jobs, log, now, metrics });
  const audit = createAuditLog(db, now);
  const passwordResets = createPasswordResets(db, now, passwords);
  const identity = createIdentityService(provider, db);
  const auth = createRelyingParty({
    config,
    sessions,
    accounts,
    endProviderSession: (refreshToken) => identity.endSessionOfRefreshToken(refreshToken),
    now,
  });
  /** Ends every session of an account: the portal's, and the identity provider's grants and tokens. */
  const endAllSessions = async (userId: string) => {
    await auth.endOtherSessions(userId);
    await identity.revokeAccount(userId);
  };
  // Stripe when its keys are configured, the embedded sandbox otherwise (docs/payments.md,
  // "Payments").
  const stripe = config.stripe && stripeClient(config.stripe);
  const sandbox = stripe ? null : createSandboxGateway(db, now);
  const gateway = stripe ? createStripeGateway(db, stripe) : sandbox!.gateway;
  jobs.sweep("abandoned-orders", abandonedOrderSweep(db));
  const refunds = createRefunds({ db, gateway, runner: jobs, log, now, metrics });
  handleCustomerErasures(jobs, gateway);
  const invoices = createInvoices({
    db,
    invoicing: config.invoicing,
    runner: jobs,
    transmitter: outboxTransmitter(config.invoicing.outboxDir),
    now,
    log,
    metrics,
  });
  // SDI's notifications, read by every instance's job runner (docs/e-invoices.md).
  createSdiInbox({ db, inbox: inboxFolder(config.invoicing.inboxDir, MAX_NOTIFICATION_BYTES), runner: jobs, log, now });
  const payments = createOrderPayments({
    db,
    gateway,
    rateLimits,
    mail,
    runner: jobs,
    publicOrigin: config.publicOrigin,
    log,
    now,
    metrics,
  });
  const subscriptions = createSubscriptions({
    db,
    gateway,
    rateLimits,
    runner: jobs,
    mail,
    publicOrigin: config.publicOrigin,
    log,
    now,
    metrics,
  });
  const stripeCardStep =
    stripe && config.stripe
      ? createStripeCardStep({ db, stripe, publishableKey: config.stripe.publishableKey, payments, log })
      : null;
  const cardStep = createCardStep({
    sandbox,
    stripe: stripeCardStep,
    settleSetup: payments.settleSetup,
    publicOrigin: config.publicOrigin,
    log,
  });
  const stripeWebhooks =
    stripe && config.stripe && stripeCardStep
      ? createStripeWebhooks({
          db,
          stripe,
          webhookSecret: config.stripe.webhookSecret,
          payments: {
            settleSetup: payments.settleSetup,
            // A checkout's charge, else a subscription month's.
            settleCharge: async (chargeId) => (await payments.settleCharge(chargeId)) ?? subscriptions.settleCharge(chargeId),
            settleRefund: refunds.onGatewayRefund,
          },
          adoptHostedSetup: stripeCardStep.adoptFromWebhook,
          log,
          now,
        })
      : null;
  observeBacklogs(metrics, database, now);
  if (startBackgroundWork) jobs.start(JOB_RUNNER_INTERVAL_MS);
  // Charges a dead instance left half done and card steps nobody checked: every instance runs
  // it, and settlement's claims make the work happen once.
  const reconciler = setInterval(() => {
    payments.reconcile().catch((err: unknown) => log.error({ err }, "payment reconciliation failed"));
  }, PAYMENT_RECONCILE_INTERVAL_MS);
  reconciler.unref();
  return {
    content: createContentService(db),
    catalog: createCatalogService(db),
    /** The catalogue's products as the API lists them. */
    products: createProductCatalog(db),
    accounts,
    profiles: createProfiles(db, now),
    reference,
    passwordResets,
    registration: createRegistration({ accounts, rateLimits, mail, audit, publicOrigin: config.publicOrigin }),
    passwordLinks: createPasswordLinks({
      accounts,
      passwordResets,
      rateLimits,
      mail,
      audit,
      endAllSessions,
      publicOrigin: config.publicOrigin,
      secret: config.secrets.session,
      secure: config.isHttps,
      log,
    }),
    passwordChanges: createPasswordChanges(
      db,
      { rateLimits, audit, endOtherPortalSessions: (userId, keep) => auth.endOtherSessions(userId, keep), passwords },
      now,
    ),
    mail,
    rateLimits,
    audit,
    signIn: createSignIn({ accounts, rateLimits, audit, passwordResets, mail, publicOrigin: config.publicOrigin, log, metrics }),
    emailChanges: createEmailChanges({ db, rateLimits, audit, mail, publicOrigin: config.publicOrigin, log, now, passwords }),
    identity,
    /** The JSON API's bearer tokens (server/identity/access-tokens.ts). */
    apiAccess: createAccessTokens({
      provider,
      signingKeys: signingKeys as JWK[],
      issuer: config.oidc.issuer,
      audience: config.api.resource,
      accounts,
    }),
    auth,
    /** The account console: where the account is signed in, and signing out of those places. */
    devices: createDevices({
      db,
      sessions,
      audit,
      endProviderSession: (refreshToken) => identity.endSessionOfRefreshToken(refreshToken),
      portalClientId: config.oidc.clientId,
      clientName: (clientId) => identity.clientName(clientId),
      now,
    }),
    /** The account console's 'Scarica i tuoi dati'. */
    dataExports: createDataExports({ db, rateLimits, audit, now }),
    /** Signs an account out everywhere (a password reset, an operator's customer:signout-all). */
    endAllSessions,
    socialLogin: createSocialLogin({ config, accounts }),
    library: {
      activation: createActivation({ db, codeKey: config.secrets.activationCodeKey, rateLimits, now }),
      reading: createReading({ db, readerUrlTemplate: config.readerUrlTemplate, now }),
      dashboard: createLibraryDashboard({
        db,
        links: config.links,
        reference,
        subscriptionNotice: (userId, at) => subscriptionNoticeOf(db, userId, at),
        now,
      }),
      /** How the customer got each product and until when ('I miei acquisti'). */
      provenance: createProvenance({ db, now }),
    },
    purchases: createPurchases({ db, seller: config.seller }),
    checkout: createCheckout({ db, rateLimits, now }),
    /** The customer's orders and payments as the API lists them. */
    customerOrders: createCustomerOrders(db),
    payments,
    /** 'Completa l'acquisto' and the API's checkpaymenthub: one use-case, both doors (server/commerce/start-payment.ts). */
    startPayment: (input: StartPaymentInput) => startPayment(payments, input),
    /** Money given back (partial or whole, pending until the gateway says): a charge the portal could not keep, an operator's refund. */
    refunds,
    subscriptions,
    /** E-invoices (FatturaPA): issued and sent to SDI by the job runner; the customer's download, the operators' export. */
    invoices,
    /** What became of each e-invoice at SDI (its state, its files), and sending one again: the operators' commands. */
    sdiOutcomes: createSdiOutcomes({ db, invoicing: config.invoicing, now }),
    /** The background job runner: `runDue()` runs what is due now (operators, tests, the development clock). */
    jobs,
    /** The sandbox gateway's card step and 3-D Secure page; null when Stripe is configured. */
    sandbox,
    /** Stripe's notifications (server/http/app.ts routes them); null without Stripe. */
    stripeWebhooks,
    /** The customer's side of Stripe's card step (Stripe.js's key and secret, the hosted page); null without Stripe. */
    stripeCardStep,
    /** How a page takes a card (the checkout, the card update), whatever the gateway: server/payments/card-step.ts. */
    cardStep,
    /** The services' clock: what a page compares with (a card's expiry) is the same time the services write. */
    clock: now,
    /** Development only (null otherwise): the clock /dev/orologio moves forward. */
    devClock,
    flash: createFlashToasts({ secret: config.secrets.session, secure: config.isHttps }),
    health: {
      checkDatabase: () => database.ping(),
      /** Whether this instance reaches its identity provider through PUBLIC_ORIGIN, as its sign-ins do. */
      checkOwnProvider: createOwnProviderCheck({ issuer: config.oidc.issuer, now }),
    },
    /** What this instance counts, for GET /metrics (server/http/request-metrics.ts). */
    metrics,
    /** Stops the background work of the services (before the database closes). */
    close: async () => {
      clearInterval(reconciler);
      rateLimits.close();
      await jobs.stop();
    },
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
