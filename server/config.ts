// The one place that reads process.env. Everything else receives a validated Config.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { PublicSettings } from "#shared/context.ts";
import { isCap, isCodiceFiscale, isPartitaIva, isProvince } from "#shared/italian-ids.ts";
import { isEmail } from "#shared/contact-rules.ts";
import { parseTrustProxy, type TrustProxy } from "./lib/trust-proxy.ts";
import { makePrivateDirSync, writePrivateFileSync } from "./lib/private-files.ts";
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from "./db/timeouts.ts";
import { DEMO_SELLER, INVOICE_SELLER_SETTINGS } from "./lib/seller-settings.ts";

const boolean = z.enum(["true", "false", "1", "0", ""]).transform((v) => v === "true" || v === "1");
/** A setting that may be left empty (as .env.example lists it): empty is unset. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Where customers reach the portal; behind a proxy this is the proxy's address.
  PUBLIC_ORIGIN: optional(
    z.string().refine(isOrigin, "not an origin: the scheme and host only, with no path (https://portale.example.it)"),
  ),
  /** Which proxies may give the client's address (server/lib/trust-proxy.ts); unset: none. */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const parsed = parseTrustProxy(value);
      if (parsed.ok) return parsed.trust;
      ctx.addIssue({ code: "custom", message: parsed.message });
      return z.NEVER;
    }),
  /**
   * How long a stopping instance keeps serving while /readyz answers 503, for the proxy to stop
   * sending it requests (docs/operating.md, "Stopping an instance"); unset: 5 s in production,
   * none elsewhere.
   */
  SHUTDOWN_DRAIN_MS: optional(z.coerce.number().int().min(0).max(600_000)),
  /** The hard limit of a stop, from the signal to the exit; unset: the drain and 15 s. */
  SHUTDOWN_TIMEOUT_MS: optional(z.coerce.number().int().min(1_000).max(3_600_000)),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  // Unset: the embedded PGlite database under DATA_DIR. Set: a PostgreSQL server.
  DATABASE_URL: optional(
    z
      .string()
      .refine(isPostgresUrl, "not a PostgreSQL URL: postgres://user:password@host:5432/database (unset: the embedded database)"),
  ),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).default(10),
  /** The folder of PostgreSQL's pg_dump and pg_restore (npm run admin -- backup); unset: found (server/lib/postgres-binaries.ts). */
  PG_BINDIR: optional(z.string().min(1)),
  /**
   * `transaction`: DATABASE_URL leads to a pooler in transaction mode (PgBouncer's pool_mode =
   * transaction), where each transaction may run on another server connection (server/db/pooler.ts
   * says what the portal gives up for it); unset or `none`: DATABASE_URL is PostgreSQL itself, or a
   * pooler in session mode.
   */
  DATABASE_POOLER: optional(z.enum(["none", "transaction"])),
  /**
   * PostgreSQL itself (or a pooler's database in session mode), for what needs one session from
   * start to end: the start-up's migrations and seeding under their advisory lock. Unset: DATABASE_URL.
   */
  DATABASE_DIRECT_URL: optional(
    z.string().refine(isPostgresUrl, "not a PostgreSQL URL: postgres://user:password@host:5432/database"),
  ),
  // Every wait for PostgreSQL, in milliseconds (server/db/timeouts.ts says what each bounds).
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_DATABASE_TIMEOUTS.connectMs),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_DATABASE_TIMEOUTS.statementMs),
  DATABASE_LOCK_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_DATABASE_TIMEOUTS.lockMs),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs),
  DATABASE_OUTAGE_WAIT_MS: z.coerce.number().int().min(0).default(DEFAULT_DATABASE_TIMEOUTS.outageWaitMs),
  SESSION_SECRET: z.string().min(32).optional(),
  /**
   * What hashing a password costs: `standard` (argon2id, 19 MiB, 2 passes, OWASP's minimum) or
   * `minimal` (argon2's least: for tests only, refused in production).
   */
  PASSWORD_HASH_COST: z.enum(["standard", "minimal"]).default("standard"),
  // Identity provider (the portal's own OpenID provider, mounted at /oidc).
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).default("portal-frontend"),
  OIDC_CLIENT_SECRET: z.string().min(32).optional(),
  /** Comma-separated keys that sign the provider's cookies; the first signs, all verify. */
  OIDC_COOKIE_KEYS: z.string().min(32).optional(),
  /**
   * The publisher's public client (its mobile app): signs in with code + PKCE, no secret. Its
   * redirect addresses, comma-separated (a custom scheme, or a loopback address, RFC 8252).
   */
  OIDC_APP_CLIENT_ID: z.string().min(1).default("novalex-app"),
  OIDC_APP_REDIRECT_URIS: z.string().min(1).default("it.novalex.app:/oauth/callback,http://127.0.0.1/oauth/callback"),
  /** Origins whose pages may call the JSON API from a browser (CORS), comma-separated; unset: none. */
  API_CORS_ORIGINS: z.string().default(""),
  /**
   * The bearer token Prometheus sends to read GET /metrics (docs/operating.md, "Metrics and
   * alerts"); unset: /metrics answers 404 and nothing is counted.
   */
  METRICS_TOKEN: optional(z.string().min(32, "at least 32 characters (openssl rand -base64 32)")),
  /** The provider's private signing keys as a JWKS (JSON); unset: generated and kept in the database. */
  OIDC_JWKS: z.string().optional(),
  /** Key of the HMAC that stores activation codes; changing it invalidates every unused code. */
  ACTIVATION_CODE_KEY: z.string().min(32).optional(),
  /**
   * An external ebook reader: its address with {product} (the product id) and {sku}. Unset: the
   * portal's built-in reader.
   */
  READER_URL_TEMPLATE: z.string().optional(),
  // Social login: an upstream OpenID provider. Unset: the social login link is hidden.
  SOCIAL_OIDC_ISSUER: z.url().optional(),
  SOCIAL_OIDC_CLIENT_ID: z.string().optional(),
  SOCIAL_OIDC_CLIENT_SECRET: z.string().optional(),
  /** The storefront's customer logout page, opened in a new tab on sign-out. */
  STOREFRONT_LOGOUT_URL: z.url().optional(),
  // Mail: SMTP when set (smtp://user:pass@host:port), otherwise the embedded outbox.
  SMTP_URL: z.string().optional(),
  /** `true`: production runs without sending mail, on purpose (each mail waits in the outbox table). */
  MAIL_DISABLED: boolean.default(false),
  MAIL_FROM: z.string().min(3).default("Novalex Editore <noreply@novalex.example>"),
  // The publisher's other sites, linked from the header, footer and landing pages.
  MAIN_SITE_URL: z.url().default("https://www.novalex.example"),
  SHOP_URL: z.url().default("https://shop.novalex.example"),
  COURSE_PLATFORM_URL: z.url().default("https://corsi.novalex.example"),
  EDU_PLATFORM_URL: z.url().default("https://edu.novalex.example"),
  SALES_EMAIL: z.string().refine(isEmail, "Invalid email address").default("vendite@novalex.example"),
  /**
   * Which card gateway takes payments: `stripe` (needs the three keys below) or `sandbox` (the
   * embedded test gateway: test cards only, no money moves). Unset: Stripe when its keys are set,
   * otherwise the sandbox, except in production, which must name the sandbox to run it (a staging
   * site): a production portal that forgot its keys would otherwise give every product away.
   */
  PAYMENTS: z.enum(["stripe", "sandbox"]).optional(),
  // Card payments through Stripe: all three keys, or none (then the embedded sandbox gateway).
  STRIPE_SECRET_KEY: z.string().trim().startsWith("sk_").optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().trim().startsWith("pk_").optional(),
  STRIPE_WEBHOOK_SECRET: z.string().trim().startsWith("whsec_").optional(),
  /** Stripe's API address: only tests set it (a local stand-in of Stripe's API). */
  STRIPE_API_BASE: z.url().optional(),
  // The seller named on receipts and e-invoices. Outside production the defaults are a fictitious
  // publisher (DEMO_SELLER); in production e-invoices need every INVOICE_SELLER_SETTINGS set.
  SELLER_NAME: optional(z.string().trim().min(1).max(80)),
  /** The receipt's one-line address; unset: made from the street, postcode, city and province. */
  SELLER_ADDRESS: optional(z.string().trim().min(1)),
  SELLER_VAT: optional(z.string().trim().refine(isPartitaIva, "not a valid Partita IVA (11 digits with their check digit)")),
  SELLER_STREET: optional(z.string().trim().min(1).max(60)),
  SELLER_POSTCODE: optional(z.string().trim().refine(isCap, "a CAP of 5 digits")),
  SELLER_CITY: optional(z.string().trim().min(1).max(60)),
  SELLER_PROVINCE: optional(z.string().trim().refine(isProvince, "a province's sigla (RM, MI, …)")),
  /** FatturaPA's RegimeFiscale (schema 1.2.2's codes): RF01 is the ordinary regime. */
  SELLER_TAX_REGIME: optional(
    z
      .string()
      .trim()
      .regex(/^RF(0[124-9]|1\d)$/, "a RegimeFiscale code: RF01, RF02, RF04 … RF19"),
  ),
  /** The company's Codice Fiscale when it differs from its Partita IVA; unset: not written. */
  SELLER_FISCAL_CODE: optional(z.string().trim().refine(isCodiceFiscale, "not a valid Codice Fiscale")),
  /** The company's entry in the register of companies (REA) as `RM-1234567`; unset: not written. */
  SELLER_REA: optional(
    z
      .string()
      .trim()
      .regex(/^[A-Z]{2}-[A-Z0-9]{1,20}$/, "the office's sigla, a dash, the number (RM-1234567)"),
  ),
  /** A company's share capital in euro (`10000` or `10000.00`), as its invoices and receipts state it (art. 2250 c.c.). */
  SELLER_SHARE_CAPITAL: optional(
    z
      .string()
      .trim()
      .regex(/^\d{1,13}(\.\d{2})?$/, "euro, with a dot before the cents (10000 or 10000.00)"),
  ),
  /** A company's shareholders: `SU` one (socio unico), `SM` more than one; unset: not written. */
  SELLER_SOLE_SHAREHOLDER: optional(z.enum(["SU", "SM"])),
  /** `true` while the company is being wound up (in liquidazione): invoices and receipts say so. */
  SELLER_IN_LIQUIDATION: boolean.default(false),
  /**
   * Virtual stamp duty (2 €, paid by the publisher each quarter) on invoices whose amounts outside
   * VAT exceed 77,47 €: the accountant's decision, on unless set to `false`.
   */
  SELLER_STAMP_DUTY: optional(boolean),
  /** What e-invoice numbers are prefixed with: the portal's own series beside the publisher's other registers. */
  INVOICE_SERIES: z
    .string()
    .trim()
    .regex(/^[A-Z0-9]{1,8}$/, "1 to 8 capital letters or digits")
    .default("WEB"),
  /**
   * What credit notes' numbers are prefixed with (decision 025): their own yearly series by
   * default; set it to INVOICE_SERIES for credit notes numbered among the invoices.
   */
  CREDIT_NOTE_SERIES: z
    .string()
    .trim()
    .regex(/^[A-Z0-9]{1,8}$/, "1 to 8 capital letters or digits")
    .default("NC"),
  /** Where the default SDI transmitter writes each e-invoice for the publisher's intermediary; unset: DATA_DIR/sdi-outbox. */
  SDI_OUTBOX_DIR: optional(z.string().min(1)),
  /** Where SDI's notifications (RC, MC, NS) are dropped for the portal to read; unset: DATA_DIR/sdi-inbox. */
  SDI_INBOX_DIR: optional(z.string().min(1)),
});

/** The seller as an e-invoice (FatturaPA's CedentePrestatore) names it. */
export type InvoiceSeller = {
  name: string;
  vat: string;
  fiscalCode: string | null;
  taxRegime: string;
  street: string;
  postcode: string;
  city: string;
  province: string;
  /** The register of companies (IscrizioneREA): office, number and what a company states with them. */
  rea: {
    office: string;
    number: string;
    shareCapitalCents: number | null;
    /** SU: one shareholder (socio unico); SM: more. */
    soleShareholder: "SU" | "SM" | null;
    inLiquidation: boolean;
  } | null;
  /** Whether invoices over 77,47 € outside VAT carry the virtual stamp duty (DatiBollo). */
  stampDuty: boolean;
};

export type Config = {
  env: "development" | "production" | "test";
  isProduction: boolean;
  host: string;
  port: number;
  publicOrigin: string;
  /** True when customers reach the portal over HTTPS (enables HSTS and Secure cookies). */
  isHttps: boolean;
  /** Express's `trust proxy`: the proxies whose X-Forwarded-* headers are believed (false: none). */
  trustProxy: TrustProxy;
  logLevel: string;
  /** How an instance stops (server/http/shutdown.ts): the drain, then at most the rest of the limit. */
  shutdown: { drainMs: number; timeoutMs: number };
  dataDir: string;
  database: {
    url: string | undefined;
    /** `transaction`: DATABASE_URL is a pooler in transaction mode (server/db/pooler.ts). */
    pooler: "none" | "transaction";
    /** Where the start-up migrates under its advisory lock: DATABASE_DIRECT_URL, else DATABASE_URL. */
    directUrl: string | undefined;
    poolMax: number;
    pgliteDir: string;
    timeouts: DatabaseTimeouts;
    /** PG_BINDIR: where pg_dump and pg_restore are, when they are not found by themselves. */
    binDir: string | undefined;
  };
  secrets: { session: string; oidcClient: string; oidcCookieKeys: string[]; activationCodeKey: string };
  /** The cost of a new password hash (server/accounts/passwords.ts); `minimal` only outside production. */
  passwordHashCost: "standard" | "minimal";
  /** The external reader's address template, or null for the built-in reader. */
  readerUrlTemplate: string | null;
  oidc: {
    issuer: string;
    clientId: string;
    jwks: { keys: JsonWebKey[] } | null;
    /** The public client of the publisher's app (code + PKCE, no secret). */
    appClient: { clientId: string; redirectUris: string[] };
  };
  /** The JSON API: its resource indicator (the audience of its access tokens) and the origins allowed by CORS. */
  api: { resource: string; corsOrigins: string[] };
  /** Prometheus's token for GET /metrics; null: no metrics. */
  metrics: { token: string | null };
  socialLogin: { issuer: string; clientId: string; clientSecret: string } | null;
  storefrontLogoutUrl: string;
  /** No `smtpUrl` in production: mail is off on purpose (MAIL_DISABLED=true), or it would not start. */
  mail: { smtpUrl: string | undefined; from: string };
  links: { mainSite: string; shop: string; coursePlatform: string; eduPlatform: string };
  salesEmail: string;
  /** The seller named on receipts: company name, address, Partita IVA and its register entry. */
  seller: { name: string; address: string; vat: string; rea: InvoiceSeller["rea"] };
  invoicing: {
    /** null when production lacks a setting of the seller: e-invoices are then refused, naming `missing`. */
    seller: InvoiceSeller | null;
    missing: string[];
    /** Prefix of the invoices' numbers (`WEB/17`). */
    series: string;
    /** Prefix of the credit notes' numbers (`NC/3`): the invoices' own when they share their numbering. */
    creditNoteSeries: string;
    /** The default SDI transmitter's folder. */
    outboxDir: string;
    /** The folder SDI's notifications are read from (server/invoices/inbox.ts). */
    inboxDir: string;
  };
  /** Stripe when its keys are set (and PAYMENTS is not `sandbox`); null: the embedded sandbox gateway. */
  stripe: { secretKey: string; publishableKey: string; webhookSecret: string; apiBase: string | null } | null;
};

/** A production instance's drain: longer than the shipped nginx's upstream keepalive_timeout (4 s). */
const DEFAULT_PRODUCTION_DRAIN_MS = 5_000;
/** What a stop may take after the drain unless told: in-flight requests, the pool, the log. */
const DEFAULT_STOP_AFTER_DRAIN_MS = 15_000;
/** After the drain: turning away (at most 3 s), a second of requests in flight, 2 s to close. */
const MIN_STOP_AFTER_DRAIN_MS = 6_000;

/** The secrets a production deployment must provide. */
const REQUIRED_SECRETS = ["SESSION_SECRET", "OIDC_CLIENT_SECRET", "OIDC_COOKIE_KEYS", "ACTIVATION_CODE_KEY"] as const;
type SecretName = (typeof REQUIRED_SECRETS)[number];

export class ConfigError extends Error {
  override name = "ConfigError";
}

export type LoadConfigOptions = {
  env?: NodeJS.ProcessEnv;
  /** Told about secrets generated for a non-production run. */
  onGeneratedSecrets?: (names: string[], file: string) => void;
};

export function loadConfig({ env = process.env, onGeneratedSecrets }: LoadConfigOptions = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    // One line per setting, naming it: one mistake reads as one line.
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(
      problems.length === 1 ? `Invalid configuration: ${problems[0]}` : `Invalid configuration:\n  ${problems.join("\n  ")}`,
    );
  }
  const e = parsed.data;
  const isProduction = e.NODE_ENV === "production";
  const dataDir = path.resolve(e.DATA_DIR);
  const publicOrigin = (e.PUBLIC_ORIGIN ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");

  const secrets = resolveSecrets(
    {
      SESSION_SECRET: e.SESSION_SECRET,
      OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET,
      OIDC_COOKIE_KEYS: e.OIDC_COOKIE_KEYS,
      ACTIVATION_CODE_KEY: e.ACTIVATION_CODE_KEY,
    },
    { isProduction, dataDir, onGeneratedSecrets },
  );
  const social = [e.SOCIAL_OIDC_ISSUER, e.SOCIAL_OIDC_CLIENT_ID, e.SOCIAL_OIDC_CLIENT_SECRET];
  if (social.some(Boolean) && !social.every(Boolean)) {
    throw new ConfigError("Social login needs SOCIAL_OIDC_ISSUER, SOCIAL_OIDC_CLIENT_ID and SOCIAL_OIDC_CLIENT_SECRET together.");
  }

  const stripe = [e.STRIPE_SECRET_KEY, e.STRIPE_PUBLISHABLE_KEY, e.STRIPE_WEBHOOK_SECRET];
  if (stripe.some(Boolean) && !stripe.every(Boolean)) {
    throw new ConfigError("Stripe needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET together.");
  }
  const hasStripeKeys = stripe.every(Boolean);
  const payments = e.PAYMENTS ?? (hasStripeKeys ? "stripe" : "sandbox");
  if (payments === "stripe" && !hasStripeKeys) {
    throw new ConfigError("PAYMENTS=stripe needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET.");
  }
  if (isProduction && e.PASSWORD_HASH_COST !== "standard") {
    throw new ConfigError(
      `PASSWORD_HASH_COST=${e.PASSWORD_HASH_COST} is for tests only: production hashes passwords at the standard cost.`,
    );
  }
  if (isProduction && !e.PAYMENTS && !hasStripeKeys) {
    throw new ConfigError(
      "No card gateway in production: set STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET, " +
        "or PAYMENTS=sandbox to run the test gateway (test cards only, no money moves: a staging site).",
    );
  }

  // Without SMTP every mail (password links, order confirmations) waits in a table nobody reads.
  if (isProduction && !e.SMTP_URL && !e.MAIL_DISABLED) {
    throw new ConfigError(
      "No mail in production: set SMTP_URL (smtp://user:password@host:587), " +
        "or MAIL_DISABLED=true to run without sending any mail (password links and receipts then wait in the outbox table).",
    );
  }
  if (e.SMTP_URL && e.MAIL_DISABLED) {
    throw new ConfigError("MAIL_DISABLED=true and SMTP_URL are both set: unset one (MAIL_DISABLED turns mail off).");
  }

  const pooler = e.DATABASE_POOLER ?? "none";
  if (e.DATABASE_DIRECT_URL && !e.DATABASE_URL) {
    throw new ConfigError(
      "DATABASE_DIRECT_URL is set without DATABASE_URL: set DATABASE_URL too (the address the instances' pool uses).",
    );
  }
  if (pooler === "transaction" && !e.DATABASE_URL) {
    throw new ConfigError(
      "DATABASE_POOLER=transaction needs DATABASE_URL: the pooler's address (the embedded database has none).",
    );
  }
  // The start-up's advisory lock is held by a session: through a pooler in transaction mode it
  // would be taken on one server connection and released on another, or never.
  if (pooler === "transaction" && !e.DATABASE_DIRECT_URL) {
    throw new ConfigError(
      "DATABASE_POOLER=transaction needs DATABASE_DIRECT_URL: PostgreSQL itself (or a PgBouncer database in session mode), " +
        "where the start-up migrates under its advisory lock (docs/operating.md, PgBouncer).",
    );
  }

  const drainMs = e.SHUTDOWN_DRAIN_MS ?? (isProduction ? DEFAULT_PRODUCTION_DRAIN_MS : 0);
  const timeoutMs = e.SHUTDOWN_TIMEOUT_MS ?? drainMs + DEFAULT_STOP_AFTER_DRAIN_MS;
  if (timeoutMs < drainMs + MIN_STOP_AFTER_DRAIN_MS) {
    throw new ConfigError(
      `SHUTDOWN_TIMEOUT_MS (${timeoutMs}) must leave at least ${MIN_STOP_AFTER_DRAIN_MS} ms after SHUTDOWN_DRAIN_MS (${drainMs}) ` +
        "to finish the requests in flight and close the database.",
    );
  }

  // Production invents no seller: what it was not given stays missing, and e-invoices are refused.
  const sellerSetting = (name: (typeof INVOICE_SELLER_SETTINGS)[number]) =>
    e[name] ?? (isProduction ? undefined : DEMO_SELLER[name]);
  const missingSeller = INVOICE_SELLER_SETTINGS.filter((name) => sellerSetting(name) === undefined);
  const seller = {
    name: sellerSetting("SELLER_NAME") ?? DEMO_SELLER.SELLER_NAME,
    vat: sellerSetting("SELLER_VAT") ?? DEMO_SELLER.SELLER_VAT,
    street: sellerSetting("SELLER_STREET") ?? DEMO_SELLER.SELLER_STREET,
    postcode: sellerSetting("SELLER_POSTCODE") ?? DEMO_SELLER.SELLER_POSTCODE,
    city: sellerSetting("SELLER_CITY") ?? DEMO_SELLER.SELLER_CITY,
    province: sellerSetting("SELLER_PROVINCE") ?? DEMO_SELLER.SELLER_PROVINCE,
  };
  const [reaOffice, reaNumber] = e.SELLER_REA?.split("-") ?? [];
  const companyDetails = ["SELLER_SHARE_CAPITAL", "SELLER_SOLE_SHAREHOLDER"] as const;
  if (!e.SELLER_REA && (companyDetails.some((name) => e[name]) || e.SELLER_IN_LIQUIDATION)) {
    throw new ConfigError(
      "SELLER_SHARE_CAPITAL, SELLER_SOLE_SHAREHOLDER and SELLER_IN_LIQUIDATION go with the register entry: set SELLER_REA too.",
    );
  }
  const rea =
    reaOffice && reaNumber
      ? {
          office: reaOffice,
          number: reaNumber,
          shareCapitalCents: e.SELLER_SHARE_CAPITAL ? Math.round(Number(e.SELLER_SHARE_CAPITAL) * 100) : null,
          soleShareholder: e.SELLER_SOLE_SHAREHOLDER ?? null,
          inLiquidation: e.SELLER_IN_LIQUIDATION,
        }
      : null;

  return {
    env: e.NODE_ENV,
    isProduction,
    host: e.HOST,
    port: e.PORT,
    publicOrigin,
    isHttps: publicOrigin.startsWith("https://"),
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL ?? (e.NODE_ENV === "test" ? "warn" : "info"),
    shutdown: { drainMs, timeoutMs },
    dataDir,
    database: {
      url: e.DATABASE_URL || undefined,
      pooler,
      directUrl: e.DATABASE_DIRECT_URL ?? (e.DATABASE_URL || undefined),
      poolMax: e.DATABASE_POOL_MAX,
      pgliteDir: path.join(dataDir, "pglite"),
      binDir: e.PG_BINDIR,
      timeouts: {
        connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
        statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
        lockMs: e.DATABASE_LOCK_TIMEOUT_MS,
        idleInTransactionMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        outageWaitMs: e.DATABASE_OUTAGE_WAIT_MS,
      },
    },
    secrets: {
      session: secrets.SESSION_SECRET,
      oidcClient: secrets.OIDC_CLIENT_SECRET,
      oidcCookieKeys: secrets.OIDC_COOKIE_KEYS.split(",").map((k) => k.trim()),
      activationCodeKey: secrets.ACTIVATION_CODE_KEY,
    },
    passwordHashCost: e.PASSWORD_HASH_COST,
    readerUrlTemplate: e.READER_URL_TEMPLATE || null,
    oidc: {
      issuer: (e.OIDC_ISSUER ?? `${publicOrigin}/oidc`).replace(/\/+$/, ""),
      clientId: e.OIDC_CLIENT_ID,
      jwks: e.OIDC_JWKS ? parseJwks(e.OIDC_JWKS) : null,
      appClient: { clientId: e.OIDC_APP_CLIENT_ID, redirectUris: listOf(e.OIDC_APP_REDIRECT_URIS) },
    },
    api: { resource: `${publicOrigin}/api`, corsOrigins: listOf(e.API_CORS_ORIGINS).map(originOf) },
    metrics: { token: e.METRICS_TOKEN ?? null },
    socialLogin:
      e.SOCIAL_OIDC_ISSUER && e.SOCIAL_OIDC_CLIENT_ID && e.SOCIAL_OIDC_CLIENT_SECRET
        ? { issuer: e.SOCIAL_OIDC_ISSUER, clientId: e.SOCIAL_OIDC_CLIENT_ID, clientSecret: e.SOCIAL_OIDC_CLIENT_SECRET }
        : null,
    storefrontLogoutUrl: e.STOREFRONT_LOGOUT_URL ?? `${e.SHOP_URL.replace(/\/+$/, "")}/customer/account/logout/`,
    mail: { smtpUrl: e.SMTP_URL || undefined, from: e.MAIL_FROM },
    links: {
      mainSite: e.MAIN_SITE_URL.replace(/\/+$/, ""),
      shop: e.SHOP_URL.replace(/\/+$/, ""),
      coursePlatform: e.COURSE_PLATFORM_URL.replace(/\/+$/, ""),
      eduPlatform: e.EDU_PLATFORM_URL.replace(/\/+$/, ""),
    },
    salesEmail: e.SALES_EMAIL,
    // Receipts keep naming the demo seller where production lacks a setting, as they always did.
    seller: {
      name: seller.name,
      address: e.SELLER_ADDRESS ?? `${seller.street}, ${seller.postcode} ${seller.city} (${seller.province})`,
      vat: seller.vat,
      rea,
    },
    invoicing: {
      seller:
        missingSeller.length > 0
          ? null
          : {
              ...seller,
              fiscalCode: e.SELLER_FISCAL_CODE ?? null,
              taxRegime: sellerSetting("SELLER_TAX_REGIME")!,
              rea,
              stampDuty: e.SELLER_STAMP_DUTY ?? true,
            },
      missing: missingSeller,
      series: e.INVOICE_SERIES,
      creditNoteSeries: e.CREDIT_NOTE_SERIES,
      outboxDir: path.resolve(e.SDI_OUTBOX_DIR ?? path.join(dataDir, "sdi-outbox")),
      inboxDir: path.resolve(e.SDI_INBOX_DIR ?? path.join(dataDir, "sdi-inbox")),
    },
    stripe:
      payments === "stripe" && e.STRIPE_SECRET_KEY && e.STRIPE_PUBLISHABLE_KEY && e.STRIPE_WEBHOOK_SECRET
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            publishableKey: e.STRIPE_PUBLISHABLE_KEY,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET,
            apiBase: e.STRIPE_API_BASE ?? null,
          }
        : null,
  };
}

/** PUBLIC_ORIGIN: http(s), a host, maybe a port, and nothing after (a trailing slash is dropped). */
function isOrigin(text: string): boolean {
  const url = URL.parse(text);
  return url !== null && (url.protocol === "https:" || url.protocol === "http:") && url.href === `${url.origin}/`;
}

/** DATABASE_URL: what the pool can connect with; anything else fails later as a host named "base". */
function isPostgresUrl(text: string): boolean {
  const url = URL.parse(text);
  return url !== null && (url.protocol === "postgres:" || url.protocol === "postgresql:");
}

/** A comma-separated setting as its non-empty items. */
function listOf(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/** An origin of API_CORS_ORIGINS as browsers send it (scheme, host, port; no path). */
function originOf(text: string): string {
  const url = URL.parse(text);
  if (!url || url.origin === "null") throw new ConfigError(`API_CORS_ORIGINS: ${text} is not an origin (https://host[:port]).`);
  return url.origin;
}

/** OIDC_JWKS: {"keys":[...]} with at least one private key (a "d" member). */
function parseJwks(text: string): { keys: JsonWebKey[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError('OIDC_JWKS is not valid JSON: it must be a JWKS, {"keys": [ ...private keys... ]}.');
  }
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => k && typeof k === "object" && "d" in k)) {
    throw new ConfigError('OIDC_JWKS must hold a non-empty "keys" array of private keys.');
  }
  return { keys: keys as JsonWebKey[] };
}

/**
 * Production must be given its secrets. Anywhere else a missing secret is generated once and
 * kept in DATA_DIR/secrets.json, so sessions survive restarts of a development server.
 */
function resolveSecrets(
  given: Record<SecretName, string | undefined>,
  opts: { isProduction: boolean; dataDir: string; onGeneratedSecrets?: LoadConfigOptions["onGeneratedSecrets"] },
): Record<SecretName, string> {
  const missing = REQUIRED_SECRETS.filter((name) => !given[name]);
  if (missing.length === 0) return given as Record<SecretName, string>;
  if (opts.isProduction) {
    throw new ConfigError(
      `Missing required secret(s) in production: ${missing.join(", ")}. ` +
        `Set each to a random value of at least 32 characters (e.g. \`openssl rand -base64 48\`).`,
    );
  }
  const file = path.join(opts.dataDir, "secrets.json");
  const stored: Partial<Record<SecretName, string>> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  const generated = missing.filter((name) => !stored[name]);
  for (const name of generated) stored[name] = randomBytes(48).toString("base64url");
  if (generated.length > 0) {
    makePrivateDirSync(opts.dataDir);
    writePrivateFileSync(file, JSON.stringify(stored, null, 2));
    opts.onGeneratedSecrets?.(generated, file);
  }
  const result = { ...given };
  for (const name of missing) result[name] = stored[name];
  return result as Record<SecretName, string>;
}

/** The settings the pages may see (shared/context.ts `PublicSettings`): public links, never secrets. */
export function publicSettingsOf(config: Config): PublicSettings {
  return {
    links: config.links,
    salesEmail: config.salesEmail,
    isProduction: config.isProduction,
    publicOrigin: config.publicOrigin,
    storefrontLogoutUrl: config.storefrontLogoutUrl,
    socialLogin: config.socialLogin !== null,
    seller: { name: config.seller.name, vat: config.seller.vat },
  };
}
