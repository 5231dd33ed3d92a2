import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import express from "express";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";
import { isPartitaIva } from "#shared/italian-ids.ts";

const tempDir = () => mkdtempSync(path.join(tmpdir(), "portal-config-"));
/** Production with its secrets, the sandbox gateway and mail off on purpose: what it needs to start. */
const productionEnv = () => ({
  NODE_ENV: "production",
  SESSION_SECRET: "s".repeat(40),
  OIDC_CLIENT_SECRET: "c".repeat(40),
  OIDC_COOKIE_KEYS: "k".repeat(40),
  ACTIVATION_CODE_KEY: "a".repeat(40),
  PAYMENTS: "sandbox",
  MAIL_DISABLED: "true",
  DATA_DIR: tempDir(),
});

describe("loadConfig", () => {
  it("defaults the public origin to localhost on the configured port", () => {
    const dataDir = tempDir();
    const config = loadConfig({ env: { PORT: "4123", DATA_DIR: dataDir } });
    expect(config.publicOrigin).toBe("http://localhost:4123");
    // SDI's folders sit in the data folder unless given.
    expect([config.invoicing.outboxDir, config.invoicing.inboxDir]).toEqual([
      path.join(dataDir, "sdi-outbox"),
      path.join(dataDir, "sdi-inbox"),
    ]);
    expect(config.isHttps).toBe(false);
    expect(config.database.url).toBeUndefined();
  });

  it("takes the origin from configuration behind a proxy", () => {
    const config = loadConfig({ env: { PUBLIC_ORIGIN: "https://account.novalex.example/", DATA_DIR: tempDir() } });
    expect(config.publicOrigin).toBe("https://account.novalex.example");
    expect(config.isHttps).toBe(true);
  });

  describe("TRUST_PROXY", () => {
    const trustOf = (value?: string) =>
      loadConfig({ env: { DATA_DIR: tempDir(), ...(value === undefined ? {} : { TRUST_PROXY: value }) } }).trustProxy;

    it("trusts no proxy unless told which", () => {
      for (const nothing of [undefined, "", "false", "0"]) expect(trustOf(nothing)).toBe(false);
    });

    it("takes what Express takes: a number of proxies, their addresses and subnets, its range names", () => {
      expect(trustOf("1")).toBe(1);
      expect(trustOf("2")).toBe(2);
      expect(trustOf("loopback")).toEqual(["loopback"]);
      expect(trustOf(" 10.0.0.5, 10.1.0.0/16 ,uniquelocal,::1, fd00::/8")).toEqual([
        "10.0.0.5",
        "10.1.0.0/16",
        "uniquelocal",
        "::1",
        "fd00::/8",
      ]);
      // Express compiles the setting when it is set, and throws on what it cannot read.
      for (const value of ["1", "loopback", "10.0.0.5,10.1.0.0/16,uniquelocal,linklocal,::1,fd00::/8"]) {
        expect(() => express().set("trust proxy", trustOf(value))).not.toThrow();
      }
    });

    it("refuses true, which would let any client choose its address, saying what to set instead", () => {
      expect(() => trustOf("true")).toThrow(ConfigError);
      expect(() => trustOf("true")).toThrow(/TRUST_PROXY: true would trust every address in X-Forwarded-For/);
      expect(() => trustOf("true")).toThrow(/TRUST_PROXY=1 behind one nginx/);
    });

    it("refuses what is not an address, a subnet or a range name, naming it", () => {
      for (const wrong of [
        "yes",
        "nginx.local",
        "10.0.0.0/33",
        "fd00::/129",
        "10.0.0.1/8/8",
        "1.5",
        "-1",
        "loopback,",
        "10.0.0.256",
      ]) {
        expect(() => trustOf(wrong), wrong).toThrow(/TRUST_PROXY: .* is not a proxy's address, subnet or range name/);
      }
    });
  });

  it("refuses to start in production without secrets, naming them", () => {
    expect(() => loadConfig({ env: { NODE_ENV: "production", DATA_DIR: tempDir() } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { NODE_ENV: "production", DATA_DIR: tempDir() } })).toThrow(/SESSION_SECRET/);
  });

  it("generates missing secrets once outside production and keeps them", () => {
    const dir = tempDir();
    const told: string[][] = [];
    const first = loadConfig({ env: { DATA_DIR: dir }, onGeneratedSecrets: (names) => told.push(names) });
    const second = loadConfig({ env: { DATA_DIR: dir }, onGeneratedSecrets: (names) => told.push(names) });
    expect(first.secrets.session).toHaveLength(64);
    expect(second.secrets.session).toBe(first.secrets.session);
    expect(told).toEqual([["SESSION_SECRET", "OIDC_CLIENT_SECRET", "OIDC_COOKIE_KEYS", "ACTIVATION_CODE_KEY"]]);
    expect(JSON.parse(readFileSync(path.join(dir, "secrets.json"), "utf8")).SESSION_SECRET).toBe(first.secrets.session);
  });

  it("takes the identity provider's signing keys from OIDC_JWKS when given, and checks them", () => {
    const jwks = { keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", d: "d", kid: "k1" }] };
    const config = loadConfig({ env: { DATA_DIR: tempDir(), OIDC_JWKS: JSON.stringify(jwks) } });
    expect(config.oidc.jwks).toEqual(jwks);
    expect(loadConfig({ env: { DATA_DIR: tempDir() } }).oidc.jwks).toBeNull();
    expect(() => loadConfig({ env: { DATA_DIR: tempDir(), OIDC_JWKS: "{nope" } })).toThrow(/OIDC_JWKS/);
    expect(() => loadConfig({ env: { DATA_DIR: tempDir(), OIDC_JWKS: '{"keys":[{"kty":"EC"}]}' } })).toThrow(/private keys/);
  });

  it("names the seller of receipts, by default or as configured, and checks its Partita IVA", () => {
    expect(loadConfig({ env: { DATA_DIR: tempDir() } }).seller).toEqual({
      name: "Novalex Editore S.r.l.",
      address: "Via Nazionale 91, 00184 Roma (RM)",
      vat: "06363391001",
      rea: null,
    });
    const configured = loadConfig({
      env: {
        DATA_DIR: tempDir(),
        SELLER_NAME: "Altro Editore S.p.A.",
        SELLER_ADDRESS: "Corso Italia 1, 20122 Milano (MI)",
        SELLER_VAT: "00743110157",
      },
    });
    expect(configured.seller).toEqual({
      name: "Altro Editore S.p.A.",
      address: "Corso Italia 1, 20122 Milano (MI)",
      vat: "00743110157",
      rea: null,
    });
    expect(() => loadConfig({ env: { DATA_DIR: tempDir(), SELLER_VAT: "12345678903" } })).toThrow(/SELLER_VAT/);
  });

  it("gives e-invoices the fictitious seller outside production, and in production only what it was given", () => {
    const dev = loadConfig({ env: { DATA_DIR: tempDir() } }).invoicing;
    expect(dev).toMatchObject({
      seller: {
        name: "Novalex Editore S.r.l.",
        vat: "06363391001",
        street: "Via Nazionale 91",
        postcode: "00184",
        city: "Roma",
        province: "RM",
        taxRegime: "RF01",
        fiscalCode: null,
        rea: null,
        stampDuty: true,
      },
      missing: [],
      series: "WEB",
      creditNoteSeries: "NC",
    });
    expect(isPartitaIva(dev.seller!.vat)).toBe(true);

    const secrets = productionEnv();
    const bare = loadConfig({ env: { ...secrets, SELLER_NAME: "Editore Vero S.r.l." } });
    expect(bare.invoicing.seller).toBeNull();
    expect(bare.invoicing.missing.join(" ")).toBe(
      "SELLER_VAT SELLER_STREET SELLER_POSTCODE SELLER_CITY SELLER_PROVINCE SELLER_TAX_REGIME",
    );

    const seller = {
      SELLER_NAME: "Altro Editore S.p.A.",
      SELLER_VAT: "00743110157",
      SELLER_STREET: "Corso Italia 1",
      SELLER_POSTCODE: "20122",
      SELLER_CITY: "Milano",
      SELLER_PROVINCE: "MI",
      SELLER_TAX_REGIME: "RF01",
      SELLER_REA: "MI-1234567",
      INVOICE_SERIES: "P",
      CREDIT_NOTE_SERIES: "P",
      SDI_OUTBOX_DIR: "/srv/sdi",
      SDI_INBOX_DIR: "/srv/sdi-notifiche",
    };
    const full = loadConfig({ env: { ...secrets, ...seller } });
    expect(full.invoicing).toEqual({
      seller: {
        name: "Altro Editore S.p.A.",
        vat: "00743110157",
        fiscalCode: null,
        taxRegime: "RF01",
        street: "Corso Italia 1",
        postcode: "20122",
        city: "Milano",
        province: "MI",
        rea: { office: "MI", number: "1234567", shareCapitalCents: null, soleShareholder: null, inLiquidation: false },
        stampDuty: true,
      },
      missing: [],
      series: "P",
      creditNoteSeries: "P",
      outboxDir: "/srv/sdi",
      inboxDir: "/srv/sdi-notifiche",
    });
    // The receipt's address, unless given, is the invoice's.
    expect(full.seller.address).toBe("Corso Italia 1, 20122 Milano (MI)");
    expect(() => loadConfig({ env: { ...secrets, ...seller, SELLER_PROVINCE: "Milano" } })).toThrow(/SELLER_PROVINCE/);
    expect(() => loadConfig({ env: { ...secrets, ...seller, SELLER_TAX_REGIME: "RF99" } })).toThrow(/SELLER_TAX_REGIME/);
  });

  it("takes what an S.r.l. states beside its register entry, and the stamp duty as the accountant decides", () => {
    const base = { DATA_DIR: tempDir(), SELLER_REA: "RM-1234567" };
    const company = loadConfig({
      env: { ...base, SELLER_SHARE_CAPITAL: "10000", SELLER_SOLE_SHAREHOLDER: "SU", SELLER_IN_LIQUIDATION: "true" },
    });
    const rea = { office: "RM", number: "1234567", shareCapitalCents: 1_000_000, soleShareholder: "SU", inLiquidation: true };
    expect(company.invoicing.seller!.rea).toEqual(rea);
    // The receipt states the same.
    expect(company.seller.rea).toEqual(rea);
    expect(loadConfig({ env: { ...base, SELLER_SHARE_CAPITAL: "12500.50" } }).seller.rea!.shareCapitalCents).toBe(1_250_050);
    expect(() => loadConfig({ env: { ...base, SELLER_SHARE_CAPITAL: "10.000,00" } })).toThrow(/SELLER_SHARE_CAPITAL/);
    expect(() => loadConfig({ env: { ...base, SELLER_SOLE_SHAREHOLDER: "yes" } })).toThrow(/SELLER_SOLE_SHAREHOLDER/);
    // Without the register entry they have nowhere to go.
    expect(() => loadConfig({ env: { DATA_DIR: tempDir(), SELLER_SOLE_SHAREHOLDER: "SU" } })).toThrow(/set SELLER_REA/);

    // Stamp duty: on unless set to false; empty (as .env.example lists it) is unset.
    expect(loadConfig({ env: { DATA_DIR: tempDir(), SELLER_STAMP_DUTY: "" } }).invoicing.seller!.stampDuty).toBe(true);
    expect(loadConfig({ env: { DATA_DIR: tempDir(), SELLER_STAMP_DUTY: "false" } }).invoicing.seller!.stampDuty).toBe(false);
    expect(() => loadConfig({ env: { DATA_DIR: tempDir(), SELLER_STAMP_DUTY: "no" } })).toThrow(/SELLER_STAMP_DUTY/);
  });

  describe("the card gateway", () => {
    const productionSecrets = {
      NODE_ENV: "production",
      SESSION_SECRET: "s".repeat(40),
      OIDC_CLIENT_SECRET: "c".repeat(40),
      OIDC_COOKIE_KEYS: "k".repeat(40),
      ACTIVATION_CODE_KEY: "a".repeat(40),
      MAIL_DISABLED: "true",
    };
    const stripeKeys = { STRIPE_SECRET_KEY: "sk_live_x", STRIPE_PUBLISHABLE_KEY: "pk_live_x", STRIPE_WEBHOOK_SECRET: "whsec_x" };

    it("refuses to start in production without a real gateway, naming the keys and the opt-in", () => {
      const start = () => loadConfig({ env: { ...productionSecrets, DATA_DIR: tempDir() } });
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(/STRIPE_SECRET_KEY.*PAYMENTS=sandbox/s);
    });

    it("runs the sandbox in production only when it is named, and Stripe when its keys are given", () => {
      expect(loadConfig({ env: { ...productionSecrets, PAYMENTS: "sandbox", DATA_DIR: tempDir() } }).stripe).toBeNull();
      expect(loadConfig({ env: { ...productionSecrets, ...stripeKeys, DATA_DIR: tempDir() } }).stripe).toMatchObject({
        secretKey: "sk_live_x",
      });
      // Named, the sandbox wins over keys that are there (a staging site sharing a configuration).
      expect(
        loadConfig({ env: { ...productionSecrets, ...stripeKeys, PAYMENTS: "sandbox", DATA_DIR: tempDir() } }).stripe,
      ).toBeNull();
      expect(() => loadConfig({ env: { ...productionSecrets, PAYMENTS: "stripe", DATA_DIR: tempDir() } })).toThrow(
        /PAYMENTS=stripe needs/,
      );
    });

    it("runs the sandbox by default outside production", () => {
      expect(loadConfig({ env: { DATA_DIR: tempDir() } }).stripe).toBeNull();
    });
  });

  it("drains a stopping production instance for 5 s unless told, not elsewhere, and bounds the whole stop", () => {
    expect(loadConfig({ env: productionEnv() }).shutdown).toEqual({ drainMs: 5_000, timeoutMs: 20_000 });
    expect(loadConfig({ env: { DATA_DIR: tempDir() } }).shutdown).toEqual({ drainMs: 0, timeoutMs: 15_000 });
    expect(loadConfig({ env: { ...productionEnv(), SHUTDOWN_DRAIN_MS: "8000", SHUTDOWN_TIMEOUT_MS: "30000" } }).shutdown).toEqual(
      { drainMs: 8_000, timeoutMs: 30_000 },
    );
    // A limit the drain would use up leaves the requests in flight no time: refused at start.
    expect(() => loadConfig({ env: { ...productionEnv(), SHUTDOWN_DRAIN_MS: "10000", SHUTDOWN_TIMEOUT_MS: "15000" } })).toThrow(
      /SHUTDOWN_TIMEOUT_MS \(15000\) must leave at least 6000 ms after SHUTDOWN_DRAIN_MS \(10000\)/,
    );
    expect(() => loadConfig({ env: { DATA_DIR: tempDir(), SHUTDOWN_DRAIN_MS: "5s" } })).toThrow(/SHUTDOWN_DRAIN_MS/);
  });

  it("hashes passwords at the standard cost unless told otherwise, and never at the minimal one in production", () => {
    expect(loadConfig({ env: { DATA_DIR: tempDir() } }).passwordHashCost).toBe("standard");
    expect(loadConfig({ env: { DATA_DIR: tempDir(), PASSWORD_HASH_COST: "minimal" } }).passwordHashCost).toBe("minimal");
    const production = productionEnv();
    expect(loadConfig({ env: production }).passwordHashCost).toBe("standard");
    expect(loadConfig({ env: { ...production, PASSWORD_HASH_COST: "standard" } }).passwordHashCost).toBe("standard");
    const minimal = () => loadConfig({ env: { ...production, PASSWORD_HASH_COST: "minimal" } });
    expect(minimal).toThrow(ConfigError);
    expect(minimal).toThrow(/PASSWORD_HASH_COST=minimal is for tests only/);
    expect(() => loadConfig({ env: { DATA_DIR: tempDir(), PASSWORD_HASH_COST: "cheap" } })).toThrow(/PASSWORD_HASH_COST/);
  });

  it("rejects invalid values with a readable message", () => {
    expect(() => loadConfig({ env: { PORT: "not-a-port" } })).toThrow(/PORT/);
  });

  describe("mail in production", () => {
    const { MAIL_DISABLED: _, ...withoutMail } = productionEnv();

    it("refuses to start without SMTP_URL, naming it and the way to run without mail on purpose", () => {
      const start = () => loadConfig({ env: withoutMail });
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(/^No mail in production: set SMTP_URL \(.*\), or MAIL_DISABLED=true /);
      expect(() => loadConfig({ env: { ...withoutMail, SMTP_URL: "" } })).toThrow(/SMTP_URL/);
      expect(() => loadConfig({ env: { ...withoutMail, MAIL_DISABLED: "false" } })).toThrow(/SMTP_URL/);
    });

    it("starts with SMTP_URL, or with mail off on purpose, and not told both", () => {
      expect(loadConfig({ env: { ...withoutMail, SMTP_URL: "smtp://mail.example.it:587" } }).mail.smtpUrl).toBe(
        "smtp://mail.example.it:587",
      );
      expect(loadConfig({ env: { ...withoutMail, MAIL_DISABLED: "true" } }).mail.smtpUrl).toBeUndefined();
      expect(() => loadConfig({ env: { ...withoutMail, MAIL_DISABLED: "true", SMTP_URL: "smtp://mail.example.it" } })).toThrow(
        /MAIL_DISABLED=true and SMTP_URL/,
      );
    });

    it("is not asked for outside production (mail waits in the outbox, read at /dev/mailbox)", () => {
      expect(loadConfig({ env: { DATA_DIR: tempDir() } }).mail.smtpUrl).toBeUndefined();
    });
  });

  describe("the usual mistakes, each one line naming the setting", () => {
    const mistake = (env: Record<string, string>) => {
      try {
        loadConfig({ env: { DATA_DIR: tempDir(), ...env } });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error(`${JSON.stringify(env)} was accepted`);
    };

    it("PUBLIC_ORIGIN without a scheme, with a path, or not web", () => {
      for (const wrong of [
        "portale.example.it",
        "localhost:3000",
        "https://example.it/portale",
        "https://example.it/?a=1",
        "ftp://example.it",
      ]) {
        expect(mistake({ PUBLIC_ORIGIN: wrong }), wrong).toMatch(
          /^Invalid configuration: PUBLIC_ORIGIN: not an origin: the scheme and host only, with no path \(https:\/\/portale\.example\.it\)$/,
        );
      }
      for (const [given, origin] of [
        ["https://portale.example.it/", "https://portale.example.it"],
        ["http://localhost:3000", "http://localhost:3000"],
        ["", "http://localhost:3000"],
      ] as const) {
        expect(loadConfig({ env: { DATA_DIR: tempDir(), PUBLIC_ORIGIN: given } }).publicOrigin, given).toBe(origin);
      }
    });

    it("DATABASE_URL that is not a PostgreSQL URL", () => {
      for (const wrong of ["base", "localhost:5432/portal", "mysql://db.example.it/portal"]) {
        expect(mistake({ DATABASE_URL: wrong }), wrong).toMatch(
          /^Invalid configuration: DATABASE_URL: not a PostgreSQL URL: postgres:\/\/user:password@host:5432\/database \(unset: the embedded database\)$/,
        );
      }
      const url = "postgresql://portal:secret@db.example.it:5432/portal";
      expect(loadConfig({ env: { DATA_DIR: tempDir(), DATABASE_URL: url } }).database.url).toBe(url);
      expect(loadConfig({ env: { DATA_DIR: tempDir(), DATABASE_URL: "" } }).database.url).toBeUndefined();
    });

    it("DATABASE_POOLER=transaction without the pooler's address or PostgreSQL's own", () => {
      const pooler = "postgres://portal:secret@127.0.0.1:6432/portal";
      const direct = "postgres://portal:secret@db.example.it:5432/portal";
      expect(mistake({ DATABASE_POOLER: "transaction" })).toMatch(/^DATABASE_POOLER=transaction needs DATABASE_URL/);
      expect(mistake({ DATABASE_POOLER: "transaction", DATABASE_URL: pooler })).toMatch(
        /^DATABASE_POOLER=transaction needs DATABASE_DIRECT_URL: PostgreSQL itself/,
      );
      expect(mistake({ DATABASE_DIRECT_URL: direct })).toMatch(/^DATABASE_DIRECT_URL is set without DATABASE_URL/);
      expect(mistake({ DATABASE_POOLER: "session", DATABASE_URL: pooler })).toMatch(/^Invalid configuration: DATABASE_POOLER: /);
      const env = { DATA_DIR: tempDir(), DATABASE_URL: pooler };
      expect(loadConfig({ env: { ...env, DATABASE_POOLER: "transaction", DATABASE_DIRECT_URL: direct } }).database).toMatchObject(
        {
          url: pooler,
          pooler: "transaction",
          directUrl: direct,
        },
      );
      // Without a pooler in transaction mode, the start-up migrates where the pool goes unless told.
      expect(loadConfig({ env }).database).toMatchObject({ url: pooler, pooler: "none", directUrl: pooler });
      expect(loadConfig({ env: { ...env, DATABASE_POOLER: "", DATABASE_DIRECT_URL: direct } }).database).toMatchObject({
        pooler: "none",
        directUrl: direct,
      });
    });
  });
});
