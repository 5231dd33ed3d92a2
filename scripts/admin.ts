// Operators' commands (docs/operating.md, "Operators' commands"):
//   npm run admin -- <command> [arguments] [options]
// This script only reads the command line, applies the --yes rule, prints and sets the exit code;
// what each command does is in server/operators/ (codes, customers, coupons, orders, subscriptions, invoices), which the
// tests call directly. Every command writes an audit_log row naming the operator.
// Exit codes: 0 done; 1 refused or failed (the message says why); 2 a mistake in the command line.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { ConfigError, loadConfig, type Config } from "#server/config.ts";
import { backupDatabase, restoreDatabase } from "#server/operators/backup.ts";
import { importCatalogue } from "#server/operators/catalogue.ts";
import { codesCsv, createCodes, disableBatch, listBatches } from "#server/operators/codes.ts";
import { euroCents, operatorActor, OperatorError, type Operator } from "#server/operators/context.ts";
import { createCoupon, disableCoupon, listCoupons } from "#server/operators/coupons.ts";
import { exportCustomer, grantAccess, revokeAccess, showCustomer, signOutEverywhere } from "#server/operators/customers.ts";
import {
  CORRECTION_HINTS,
  CORRECTION_OPTION,
  exportInvoices,
  invoiceStatus,
  issueMissingInvoices,
  listInvoices,
  resendInvoice,
} from "#server/operators/invoices.ts";
import { INVOICE_STATES, RESEND_DAYS } from "#server/invoices/sdi-outcomes.ts";
import { listRefunds, refundOrder, showOrder, type RefundResult, type RefundRow } from "#server/operators/orders.ts";
import { runDue, subscriptionsReport } from "#server/operators/subscriptions.ts";
import type { OperatorReport } from "#server/commerce/subscriptions.ts";
import type { OrderRefundRequest } from "#server/commerce/order-refunds.ts";
import { ACTIVATION_CODE_KINDS, type InvoiceType } from "#server/db/schema/index.ts";
import { formatDate } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { INSTALMENTS_PER_TERM, instalmentOf } from "#shared/subscription.ts";
import { STAMP_DUTY_CENTS } from "#server/invoices/fatturapa.ts";
import { table, when, withOperatorServices, type OperatorRun } from "./operator-runtime.ts";

type Values = Record<string, string | boolean | undefined>;
type CommandLine = {
  /** The positional arguments, in order (all required). */
  args: string[];
  options?: ParseArgsOptionsConfig;
  help: string;
};
type Command = CommandLine &
  (
    | {
        /** Prints the result; returns the exit code when not 0. `run`: where the database is, how far the clock runs ahead. */
        run(op: Operator, args: string[], values: Values, run: Pick<OperatorRun, "where" | "aheadMs">): Promise<number | void>;
      }
    | {
        /** A command on the database itself (backup, restore), without the services; `actor`: operator:<name>. */
        own(config: Config, args: string[], values: Values, actor: string): Promise<number | void>;
      }
  );

/** A size as operators read it. */
const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

/** Where a file the operator named goes, created new (never over another) and readable by them only. */
function createPrivateFile(file: string): { fd: number; path: string } {
  const resolved = path.resolve(file);
  try {
    return { fd: openSync(resolved, "wx", 0o600), path: resolved };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OperatorError(
      code === "EEXIST" ? `${resolved} exists already: choose another --out` : `Cannot write ${resolved}: ${code}`,
    );
  }
}

/** A mistake in the command line: printed with the command's help. */
class UsageError extends Error {}

/** A whole number from the command line (the modules check its range). */
function integer(value: string | boolean | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^-?\d+$/.test(value)) throw new UsageError(`${option} needs a whole number`);
  return Number(value);
}
const text = (value: string | boolean | undefined) => (typeof value === "string" ? value : undefined);
const euro = (cents: number | null) => (cents === null ? "-" : formatEuro(cents));
/** The last day a code works, from the first instant it no longer does (--valid-until's own day). */
const through = (validUntil: Date | null) => (validUntil ? formatDate(new Date(validUntil.getTime() - 1)) : "no end");
const until = (date: Date | null) => (date ? when(date) : "no end");
/** A document's day (YYYY-MM-DD) as operators read it. */
const day = (date: string) => formatDate(`${date}T12:00:00Z`);
/** What an e-invoice is, as FatturaPA's TipoDocumento says and in words. */
const DOCUMENT_TYPE: Readonly<Record<InvoiceType, string>> = { TD01: "TD01 invoice", TD04: "TD04 credit note" };

/** What `orders:refund` was asked to give back, from its options. */
function refundRequest(values: Values): OrderRefundRequest {
  const line = text(values.line);
  const payment = text(values.payment);
  const amount = text(values.amount);
  if (line !== undefined && (payment !== undefined || amount !== undefined)) {
    throw new UsageError("--line gives back a whole line: it takes neither --payment nor --amount");
  }
  if (line !== undefined) return { kind: "line", product: line };
  if (amount !== undefined) return { kind: "amount", amountCents: euroCents(amount, "--amount"), paymentCode: payment ?? null };
  if (payment !== undefined) return { kind: "month", paymentCode: payment };
  return { kind: "order" };
}

/** Refunds as `orders:show` and `orders:refunds` print them. */
function printRefunds(rows: RefundRow[], withOrder = false) {
  table(
    [
      ...(withOrder ? ["order", "customer"] : []),
      "payment",
      "covers",
      "amount",
      "state",
      "at the gateway",
      "asked",
      "by",
      "ended",
      "credit note",
      "why it failed",
    ],
    rows.map((r) => [
      ...(withOrder ? [r.orderCode, r.email ?? "(erased)"] : []),
      r.paymentCode,
      r.scope === "line" ? `line ${r.sku}` : r.scope,
      euro(r.amountCents),
      r.state,
      r.gatewayRefundId ? `${r.gatewayRefundId} ${r.gatewayStatus ?? ""}`.trim() : "-",
      when(r.requestedAt),
      r.requestedBy,
      when(r.completedAt),
      r.creditNote ? `${r.creditNote} of ${day(r.creditNoteDate!)}` : "-",
      r.failureReason ?? "-",
    ]),
    ["amount"],
  );
}

/** A subscription's month, with the instalment of its term it is. */
const month = (n: number) => `${n} (rata ${instalmentOf(n)} di ${INSTALMENTS_PER_TERM})`;

/** The subscriptions' report as `subscriptions:list` prints it. */
function printSubscriptionsReport({ at, due, pastDue, failed }: OperatorReport, where: string) {
  console.log(`EDU subscriptions at ${when(at)} (Europe/Rome), ${where}\n`);
  console.log(`Months due now: ${due.length}`);
  table(
    ["subscription", "customer", "month", "state", "due", "next try", "tries", "amount"],
    due.map((r) => [
      r.subscriptionId,
      r.userId,
      month(r.number),
      r.periodStatus,
      when(r.dueAt),
      when(r.nextAttemptAt),
      String(r.tries),
      formatEuro(r.amountCents),
    ]),
    ["tries", "amount"],
  );
  console.log(`\nSubscriptions past due: ${pastDue.length}`);
  table(
    ["subscription", "customer", "failed month", "tries", "next try", "last error"],
    pastDue.map((r) => [r.subscriptionId, r.userId, month(r.number), String(r.tries), when(r.nextAttemptAt), r.lastError ?? "-"]),
    ["tries"],
  );
  console.log(`\nMonths whose every try failed (the subscription ended), most recent first: ${failed.length}`);
  table(
    ["subscription", "customer", "month", "due", "tries", "amount", "last error"],
    failed.map((r) => [
      r.subscriptionId,
      r.userId,
      month(r.number),
      when(r.dueAt),
      String(r.tries),
      formatEuro(r.amountCents),
      r.lastError ?? "-",
    ]),
    ["tries", "amount"],
  );
}

/** Says so when the development clock (/dev/orologio) runs ahead: the subscriptions' commands go by it. */
function printClockAhead(aheadMs: number) {
  if (aheadMs) console.log(`(The clock runs ${(aheadMs / 86_400_000).toFixed(1)} days ahead of the system's: /dev/orologio.)`);
}

const COMMANDS: Record<string, Command> = {
  "catalogue:import": {
    args: ["file"],
    options: { "dry-run": { type: "boolean" } },
    help: `catalogue:import <file.csv> [--dry-run]
    The publisher's catalogue from a CSV file (docs/operating.md, "The catalogue"; an example:
    deploy/catalogue-example.csv):
    each row creates the product of its sku, or updates it. Every row is checked first: a file with
    any problem is refused whole, its problems listed by line. --dry-run says what would change and
    writes nothing.`,
    async run(op, [file], values) {
      let csv: string;
      try {
        csv = readFileSync(file!, "utf8");
      } catch (error) {
        throw new OperatorError(`Cannot read ${path.resolve(file!)}: ${(error as NodeJS.ErrnoException).code}`);
      }
      const result = await importCatalogue(op, csv, { file: path.basename(file!), dryRun: values["dry-run"] === true });
      const were = result.dryRun ? "would be" : "were";
      console.log(
        `${result.dryRun ? "Dry run, nothing written: " : ""}${result.rows} row(s): ` +
          `${result.created.length} product(s) ${were} created, ${result.updated.length} ${were} updated, ${result.unchanged} unchanged.`,
      );
      for (const sku of result.created) console.log(`  + ${sku}`);
      for (const { sku, fields } of result.updated) console.log(`  ~ ${sku}: ${fields.join(", ")}`);
    },
  },

  "codes:create": {
    args: [],
    options: {
      product: { type: "string" },
      kind: { type: "string" },
      count: { type: "string" },
      "max-uses": { type: "string" },
      "valid-until": { type: "string" },
      label: { type: "string" },
      out: { type: "string" },
    },
    help: `codes:create --product <sku|code> --kind <${ACTIVATION_CODE_KINDS.join("|")}> --count N
             [--max-uses M] [--valid-until YYYY-MM-DD] [--label text] [--out file.csv | --out -]
    A batch of N activation codes. The plaintext codes go to the CSV (header "code", one code a
    line; default ./codes-<sku>-<time>.csv, created readable by you only, never overwriting; "-"
    writes it to stdout): the only time they exist in clear. --valid-until: through that day (Rome).`,
    async run(op, _args, values) {
      if (!values.product || !values.kind || !values.count) throw new UsageError("--product, --kind and --count are needed");
      const toStdout = values.out === "-";
      const stamp = op.services.clock().toISOString().replace(/[-:]/g, "").slice(0, 15);
      const file = toStdout ? null : createPrivateFile(text(values.out) ?? `codes-${String(values.product)}-${stamp}.csv`);
      let batch;
      try {
        batch = await createCodes(op, {
          product: String(values.product),
          kind: String(values.kind),
          count: integer(values.count, "--count")!,
          maxUses: integer(values["max-uses"], "--max-uses"),
          validUntil: text(values["valid-until"]),
          label: text(values.label),
        });
      } catch (error) {
        if (file) {
          closeSync(file.fd);
          unlinkSync(file.path);
        }
        throw error;
      }
      const csv = codesCsv(batch.codes);
      if (file) {
        writeSync(file.fd, csv);
        closeSync(file.fd);
      } else process.stdout.write(csv);
      const report = [
        `Batch ${batch.batchId} "${batch.label}": ${batch.codes.length} ${batch.kind} code(s) for ${batch.product.sku} (${batch.product.name}),`,
        `  ${batch.maxUses} customer(s) per code, valid through ${through(batch.validUntil)}.`,
        file
          ? `The codes are in ${file.path}, the only copy in clear: hand it to the printer, then delete it.`
          : "The codes went to stdout, the only copy in clear.",
      ].join("\n");
      // With the codes on stdout, the report goes to stderr so that the CSV stays clean.
      (toStdout ? console.error : console.log)(report);
    },
  },

  "codes:batches": {
    args: [],
    help: "codes:batches\n    Every batch, newest first, with its codes and activations so far.",
    async run(op) {
      const rows = await listBatches(op);
      table(
        ["batch", "product", "kind", "label", "max uses", "valid through", "disabled", "codes", "uses", "created"],
        rows.map((b) => [
          b.id,
          b.sku,
          b.kind,
          b.label,
          String(b.maxUses),
          through(b.validUntil),
          b.disabledAt ? when(b.disabledAt) : "-",
          String(b.codes),
          String(b.uses),
          when(b.createdAt),
        ]),
        ["max uses", "codes", "uses"],
      );
    },
  },

  "codes:disable": {
    args: ["batchId"],
    help: "codes:disable <batchId>\n    Withdraws a batch: its codes activate nothing from now on (customers see them as invalid).",
    async run(op, [batchId]) {
      const result = await disableBatch(op, batchId!);
      console.log(
        result.alreadyDisabled
          ? `Batch ${result.batchId} "${result.label}" was disabled already, on ${when(result.disabledAt)}.`
          : `Batch ${result.batchId} "${result.label}" disabled: its codes no longer activate anything.`,
      );
    },
  },

  "customer:show": {
    args: ["email"],
    help: "customer:show <email>\n    Profile, portal sessions, orders, access and subscriptions of a customer.",
    async run(op, [email]) {
      const c = await showCustomer(op, email!);
      const p = c.profile;
      console.log(`${p.firstname ?? ""} ${p.lastname ?? ""} <${p.email}>  (${p.id})`);
      console.log(
        `  ${p.profession ?? "no profession"}${p.university ? `, ${p.university}` : ""}; registered ${when(p.createdAt)}; ` +
          `${p.status}${p.migratedFromShop ? ", migrated from the old shop" : ""}; marketing ${p.acceptMarketing ? "yes" : "no"}`,
      );
      console.log(`\nPortal sessions: ${c.portalSessions.length}`);
      table(
        ["signed in", "last seen", "expires"],
        c.portalSessions.map((s) => [when(s.createdAt), when(s.lastSeenAt), when(s.expiresAt)]),
      );
      console.log(`\nOrders: ${c.orders.length}`);
      table(
        ["order", "status", "products", "total", "created", "paid", "payments"],
        c.orders.map((o) => [
          o.orderCode,
          o.status,
          o.items.map((i) => i.sku).join(", "),
          euro(o.totalCents),
          when(o.createdAt),
          when(o.committedAt),
          o.payments.map((x) => `${x.paymentCode} ${euro(x.amountCents)} ${x.status}`).join("; ") || "-",
        ]),
        ["total"],
      );
      console.log(`\nAccess: ${c.entitlements.length} grant(s)`);
      table(
        ["product", "source", "from", "until", "order"],
        c.entitlements.map((e) => [e.sku, e.source, when(e.startsAt), until(e.expiresAt), e.orderCode ?? "-"]),
      );
      console.log(`\nSubscriptions: ${c.subscriptions.length}`);
      table(
        ["product", "order", "status", "monthly", "card", "since", "months paid", "ended"],
        c.subscriptions.map((s) => [
          s.sku,
          s.orderCode,
          s.status,
          euro(s.monthlyPriceCents),
          s.cardLast4 ? `${s.cardBrand ?? "card"} …${s.cardLast4}` : "-",
          when(s.anchorAt),
          String(s.months.filter((m) => m.status === "paid").length),
          s.endedAt ? `${when(s.endedAt)} (${s.endedReason})` : "-",
        ]),
      );
    },
  },

  "customer:grant": {
    args: ["email", "product"],
    options: { months: { type: "string" } },
    help: "customer:grant <email> <sku|code> --months N\n    Gives N months of a product from now (EDU: after the EDU they have), with no order.",
    async run(op, [email, product], values) {
      const months = integer(values.months, "--months");
      if (months === undefined) throw new UsageError("--months is needed");
      const grant = await grantAccess(op, email!, product!, months);
      console.log(
        `Granted ${grant.product.sku} (${grant.product.name}) to ${email} from ${when(grant.startsAt)} until ${when(grant.expiresAt)}.`,
      );
    },
  },

  "customer:revoke": {
    args: ["email", "product"],
    help: "customer:revoke <email> <sku|code>\n    Ends now every running grant of the product to the customer.",
    async run(op, [email, product]) {
      const result = await revokeAccess(op, email!, product!);
      console.log(
        result.ended
          ? `Ended ${result.ended} grant(s) of ${result.product.sku} to ${email}: no access from now on.`
          : `${email} had no running access to ${result.product.sku}: nothing changed.`,
      );
    },
  },

  "customer:export": {
    args: ["email"],
    options: { out: { type: "string" } },
    help: "customer:export <email> [--out file.json]\n    Everything held about the customer as JSON (GDPR art. 15 and 20), on stdout or in a new file.",
    async run(op, [email], values) {
      const file = values.out === undefined ? null : createPrivateFile(String(values.out));
      try {
        const json = JSON.stringify(await exportCustomer(op, email!), null, 2) + "\n";
        if (!file) return void process.stdout.write(json);
        writeSync(file.fd, json);
        closeSync(file.fd);
        console.log(`Exported ${email} to ${file.path}.`);
      } catch (error) {
        if (file) {
          closeSync(file.fd);
          unlinkSync(file.path);
        }
        throw error;
      }
    },
  },

  "customer:signout-all": {
    args: ["email"],
    help: "customer:signout-all <email>\n    Ends every portal session and every grant and token the identity provider gave the customer.",
    async run(op, [email]) {
      const result = await signOutEverywhere(op, email!);
      console.log(
        `Signed ${email} out everywhere: ${result.portalSessions} portal session(s) and ` +
          `${result.providerRecords} identity provider record(s) ended.`,
      );
    },
  },

  "coupons:create": {
    args: [],
    options: {
      code: { type: "string" },
      description: { type: "string" },
      percent: { type: "string" },
      "amount-cents": { type: "string" },
      "max-redemptions": { type: "string" },
      "max-per-customer": { type: "string" },
      product: { type: "string" },
      "valid-until": { type: "string" },
    },
    help: `coupons:create --code X --description text (--percent N | --amount-cents N)
               [--max-redemptions N] [--max-per-customer N (default 1)] [--product sku] [--valid-until YYYY-MM-DD]`,
    async run(op, _args, values) {
      if (!values.code || !values.description) throw new UsageError("--code and --description are needed");
      const coupon = await createCoupon(op, {
        code: String(values.code),
        description: String(values.description),
        percent: integer(values.percent, "--percent"),
        amountCents: integer(values["amount-cents"], "--amount-cents"),
        maxRedemptions: integer(values["max-redemptions"], "--max-redemptions"),
        maxPerCustomer: integer(values["max-per-customer"], "--max-per-customer"),
        product: text(values.product),
        validUntil: text(values["valid-until"]),
      });
      const off = coupon.percentOff !== null ? `${coupon.percentOff} %` : euro(coupon.amountOffCents);
      console.log(
        `Discount code ${coupon.code} created: ${off} off${coupon.product ? ` ${coupon.product}` : ""}, ` +
          `${coupon.maxRedemptions ?? "unlimited"} use(s) in all, ${coupon.maxPerCustomer} per customer, valid through ${through(coupon.validUntil)}.`,
      );
    },
  },

  "coupons:list": {
    args: [],
    help: "coupons:list\n    Every discount code with its uses.",
    async run(op) {
      table(
        ["code", "off", "product", "valid through", "uses", "cap", "per customer", "disabled", "description"],
        (await listCoupons(op)).map((c) => [
          c.code,
          c.percentOff !== null ? `${c.percentOff} %` : euro(c.amountOffCents),
          c.product ?? "any",
          through(c.validUntil),
          String(c.redemptions),
          c.maxRedemptions === null ? "-" : String(c.maxRedemptions),
          String(c.maxPerCustomer),
          c.disabledAt ? when(c.disabledAt) : "-",
          c.description,
        ]),
        ["uses", "cap", "per customer"],
      );
    },
  },

  "coupons:disable": {
    args: ["code"],
    help: "coupons:disable <code>\n    Withdraws a discount code: it applies to no order from now on.",
    async run(op, [code]) {
      const result = await disableCoupon(op, code!);
      console.log(
        result.alreadyDisabled
          ? `${result.code} was disabled already, on ${when(result.disabledAt)}.`
          : `${result.code} disabled: it applies to no order from now on.`,
      );
    },
  },

  "orders:show": {
    args: ["ordercode"],
    help: "orders:show <ordercode>\n    An order with its customer, lines, payments and their refunds, the access it gave and its subscription.",
    async run(op, [orderCode]) {
      const o = await showOrder(op, orderCode!);
      console.log(`Order ${o.orderCode} of ${o.email ?? "an erased account"}: ${o.status}`);
      console.log(
        `  created ${when(o.createdAt)}, paid ${when(o.committedAt)}; subtotal ${euro(o.subtotalCents)}, ` +
          `discount ${euro(o.discountCents)}${o.couponCode ? ` (${o.couponCode})` : ""}, shipping ${euro(o.shipmentPriceCents)}, ` +
          `total ${euro(o.totalCents)}`,
      );
      console.log("\nLines:");
      table(
        ["product", "description", "quantity", "amount"],
        o.items.map((i) => [i.sku, i.description, String(i.quantity), euro(i.totalCents)]),
        ["quantity", "amount"],
      );
      console.log("\nPayments:");
      table(
        ["payment", "status", "amount", "refunded", "gateway", "card", "paid", "refunded in full"],
        o.payments.map((p) => [
          p.paymentCode,
          p.status,
          euro(p.amountCents),
          euro(p.refundedCents),
          p.gateway,
          p.cardLast4 ? `${p.cardBrand ?? "card"} …${p.cardLast4}` : "-",
          when(p.paidAt),
          when(p.refundedAt),
        ]),
        ["amount", "refunded"],
      );
      if (o.refunds.length > 0) {
        console.log("\nRefunds:");
        printRefunds(o.refunds);
      }
      console.log("\nAccess given:");
      table(
        ["product", "source", "from", "until"],
        o.entitlements.map((e) => [e.sku, e.source, when(e.startsAt), until(e.expiresAt)]),
      );
      if (o.subscription) {
        const s = o.subscription;
        console.log(`\nSubscription: ${s.status}${s.endedAt ? `, ended ${when(s.endedAt)} (${s.endedReason})` : ""}`);
      }
    },
  },

  "orders:refund": {
    args: ["ordercode"],
    options: { amount: { type: "string" }, line: { type: "string" }, payment: { type: "string" } },
    help: `orders:refund <ordercode> [--line <sku|code> | --payment <paymentcode> | --amount 12,50 [--payment <paymentcode>]]
    Gives money of a paid order back through its gateway. Alone: the whole order (EDU: every month
    paid), ending the access it gave and the subscription it started, giving back its discount
    code's use, and marking it refunded. --line: that line's share of what was paid; its access
    ends. --payment: that month of an EDU subscription, whole; that month's access ends, the
    subscription goes on. --amount (euros, decimal comma): that much, a goodwill gesture that
    ends nothing (an EDU order names the month with --payment). Never more than a payment has left.
    Safe to repeat: the whole order again only retries refunds that failed. Then runs the due jobs:
    a refund of an invoiced payment that succeeded gets its credit note (TD04), whose number it
    prints; a pending one gets it when the money has gone back.`,
    async run(op, [orderCode], values) {
      const r = await refundOrder(op, orderCode!, refundRequest(values));
      const who = `${r.orderCode} (${r.email ?? "an erased account"})`;
      console.log(
        r.alreadyRefunded
          ? `Order ${who} was refunded already${r.refunds.length ? ": what failed is asked again." : "."}`
          : [
              `Order ${who}: ${r.refunds.length} refund(s) decided`,
              r.grantsEnded ? `, ${r.grantsEnded} grant(s) ended` : "",
              r.subscriptionEnded ? ", its subscription ended" : "",
              r.eduMoved ? `, ${r.eduMoved} later EDU grant(s) moved back to where access now ends` : "",
              r.orderRefunded ? "; the order is refunded." : ".",
            ].join(""),
      );
      for (const p of r.refunds) {
        const what = `  ${p.paymentCode} ${euro(p.amountCents)} (${p.scope}):`;
        console.log(
          {
            succeeded: `${what} refunded by ${p.gateway} (${p.gatewayRefundId})`,
            pending: `${what} pending at ${p.gateway} (${p.gatewayRefundId}): recorded when ${p.gateway} completes it`,
            failed: `${what} ${p.gateway} refused it (${p.error}): the money did not go back`,
            queued: `${what} ${p.gateway} could not be reached (${p.error}); the portal's job runner retries it`,
          }[p.state] + creditNoteNote(p),
        );
      }
      if (r.refunds.some((p) => p.state === "failed")) {
        console.error(
          "A refund failed: see orders:refunds --state failed, then run orders:refund again once the cause is mended.",
        );
        return 1;
      }
      if (r.refunds.some((p) => p.state === "queued")) {
        console.error("Some money has not gone back yet: run this command again later, or check the portal's log.");
        return 1;
      }
    },
  },

  "orders:refunds": {
    args: [],
    options: { state: { type: "string" } },
    help: `orders:refunds [--state pending|succeeded|failed]
    The refunds in that state (every state when none is named), newest first, at most 200: the
    order, payment, what each covers, amount, state at the gateway, its credit note once issued,
    and why a failed one failed.`,
    async run(op, _args, values) {
      const rows = await listRefunds(op, text(values.state));
      printRefunds(rows, true);
      console.log(`${rows.length} refund(s)${values.state ? ` ${String(values.state)}` : ""}.`);
    },
  },

  "subscriptions:list": {
    args: [],
    help: `subscriptions:list
    The EDU subscription's months due now, the subscriptions past due (the failed month, its
    tries, the next try, the last error) and the months whose every try failed, recent first.`,
    async run(op, _args, _values, { where, aheadMs }) {
      printClockAhead(aheadMs);
      printSubscriptionsReport(await subscriptionsReport(op), where);
    },
  },

  "subscriptions:run-due": {
    args: [],
    help: `subscriptions:run-due
    Runs everything due now once (the months' charges, then the mails they queue) and prints how
    many of each it handled; running it again does nothing more. Safe beside running instances
    on PostgreSQL: every month and job is claimed, so each is handled once.`,
    async run(op, _args, _values, { where, aheadMs }) {
      printClockAhead(aheadMs);
      const { at, done, left } = await runDue(op);
      console.log(`Ran what was due at ${when(at)} (Europe/Rome), ${where}:`);
      // Sweeps count the months they took (paid, failed or ended); queues the jobs done.
      if (Object.values(done).every((n) => n === 0)) console.log("  nothing was due");
      else
        table(
          ["sweep or queue", "handled"],
          Object.entries(done).map(([name, n]) => [name, String(n)]),
          ["handled"],
        );
      console.log(
        `\nNow: ${left.due.length} month(s) due, ${left.pastDue.length} subscription(s) past due, ` +
          `${left.failed.length} failed month(s) (subscriptions:list).`,
      );
    },
  },

  "invoices:export": {
    args: [],
    options: { month: { type: "string" }, out: { type: "string" } },
    help: `invoices:export --month YYYY-MM [--out folder]
    Lists the month's e-invoices (FatturaPA, by their date in Rome: their payments' days, and for
    credit notes (TD04) their refunds' days), each credit note with the invoice it corrects, and
    writes each one's XML, named as SDI names it, into the folder (default ./fatture-YYYY-MM; made
    if missing; files already there with the same content are left, other content stops the
    command). Then the invoices' and the credit notes' totals, each apart, and the quarter's count
    of documents with the virtual stamp duty (2 € each).`,
    async run(op, _args, values) {
      const month = text(values.month);
      if (!month) throw new UsageError("--month is needed");
      const result = await exportInvoices(op, month, text(values.out) ?? `fatture-${month}`);
      table(
        ["number", "type", "corrects", "date", "total", "stamp", "order", "payment", "file", "sent to SDI"],
        result.invoices.map((i) => [
          i.documentNumber,
          DOCUMENT_TYPE[i.type],
          i.corrects ?? "-",
          day(i.date),
          euro(i.totalCents),
          i.stampDuty ? euro(STAMP_DUTY_CENTS) : "-",
          i.orderCode,
          i.paymentCode,
          i.fileName,
          when(i.transmittedAt),
        ]),
        ["total"],
      );
      const { invoices, creditNotes } = result.totals;
      console.log(
        `${invoices.count} invoice(s), ${euro(invoices.totalCents)}, and ${creditNotes.count} credit note(s), ` +
          `${euro(creditNotes.totalCents)} given back, of ${result.month} in ${result.folder}.`,
      );
      const { quarter, count } = result.stamped;
      console.log(
        `Stamp duty, ${quarter} so far: ${count} document(s) with the virtual stamp, ${euro(count * STAMP_DUTY_CENTS)} ` +
          "for the publisher to pay for the quarter (the Agenzia's Fatture e corrispettivi shows the same count).",
      );
    },
  },

  "invoices:issue-missing": {
    args: [],
    options: { month: { type: "string" }, late: { type: "boolean" } },
    help: `invoices:issue-missing --month YYYY-MM [--late]
    Issues the e-invoices that payments of the month (whose orders asked for one) still lack,
    each dated its payment's day, then the credit notes (TD04) that refunds which succeeded in the
    month still lack, each dated its refund's day: after production was given the seller's data,
    or after a job gave up. A payment more than 12 days old is refused and listed (an immediate
    invoice is issued within 12 days, art. 21 c. 4 DPR 633/72), and so is a credit note whose
    invoice is: the accountant decides, and --late then issues the invoice as a late invoice,
    still with its payment's date, and the credit note after it.
    Safe to repeat: a payment gets one invoice, a refund one credit note.`,
    async run(op, _args, values) {
      const month = text(values.month);
      if (!month) throw new UsageError("--month is needed");
      const result = await issueMissingInvoices(op, month, { late: values.late === true });
      table(
        ["number", "date", "total", "file"],
        result.issued.map((i) => [i.documentNumber, day(i.date), euro(i.totalCents), i.fileName]),
        ["total"],
      );
      console.log(
        `${result.issued.length} invoice(s) issued for payments of ${result.month}` +
          (result.notDue ? `; ${result.notDue} payment(s) need none (refunded).` : "."),
      );
      if (result.creditNotes.length > 0) {
        console.log("\nCredit notes:");
        table(
          ["number", "corrects", "date", "given back", "file"],
          result.creditNotes.map((c) => [c.documentNumber, c.corrects, day(c.date), euro(c.totalCents), c.fileName]),
          ["given back"],
        );
      }
      console.log(`${result.creditNotes.length} credit note(s) issued for refunds of ${result.month}.`);
      if (result.refused.length === 0 && result.refusedCreditNotes.length === 0) return;
      const refusals = [
        result.refused.length > 0 ? `${result.refused.length} payment(s) not invoiced` : "",
        result.refusedCreditNotes.length > 0 ? `${result.refusedCreditNotes.length} refund(s) without their credit note` : "",
      ];
      console.error(
        `${refusals.filter(Boolean).join(", ")}: more than 12 days have passed since the payments, the time an ` +
          "immediate invoice allows (art. 21 c. 4 DPR 633/72):",
      );
      for (const p of result.refused)
        console.error(`  ${p.paymentCode} (order ${p.orderCode}) paid on ${day(p.date)}, due by ${day(p.deadline)}`);
      for (const p of result.refusedCreditNotes)
        console.error(
          `  the credit note of ${euro(p.refundedCents)} given back on ${day(p.refundedOn)}: it corrects the invoice of ` +
            `${p.paymentCode} (order ${p.orderCode}) paid on ${day(p.date)}, due by ${day(p.deadline)}`,
        );
      console.error(
        "Ask the accountant: each is now a late invoice, dated its payment's day and regularised with " +
          "the penalty (ravvedimento operoso). Once they agree, run this command again with --late.",
      );
      return 1;
    },
  },

  "invoices:status": {
    args: ["invoice"],
    options: { year: { type: "string" } },
    help: `invoices:status <number | file name> [--year YYYY]
    An e-invoice's or credit note's state at SDI (${INVOICE_STATES.join(", ")}), each file it was sent
    as with SDI's outcome, errors and notifications, and its hand-over. By number (WEB/17, or 17 in
    the invoices' series; a credit note's NC/3; --year when several years have it) or by any of its
    files' names (IT…_0000A.xml).`,
    async run(op, [ref], values) {
      const s = await invoiceStatus(op, ref!, integer(values.year, "--year"));
      console.log(
        `${s.type === "TD04" ? `Credit note (TD04) ${s.documentNumber}, correcting ${s.corrects},` : `Invoice (TD01) ${s.documentNumber}`} ` +
          `of ${formatDate(s.issuedAt)}, ${euro(s.totalCents)}: order ${s.orderCode}, payment ${s.paymentCode}`,
      );
      console.log(`State: ${s.state}. ${stateNote(s)}`);
      console.log("\nFiles:");
      table(
        ["file", "made", "sent", "SDI id", "outcome", "on"],
        s.files.map((f) => [f.fileName, when(f.createdAt), when(f.sentAt), f.sdiId ?? "-", f.outcome ?? "-", when(f.outcomeAt)]),
      );
      for (const f of s.files.filter((file) => file.errors?.length)) {
        console.log(`\nSDI's errors for ${f.fileName}:`);
        for (const e of f.errors!) {
          console.log(`  ${e.code}  ${e.description}${e.hint ? ` (${e.hint})` : ""}`);
          if (f.fileName === s.fileName && CORRECTION_HINTS[e.code]) console.log(`         correct ${CORRECTION_HINTS[e.code]}`);
        }
      }
      console.log("\nSDI's notifications:");
      table(
        ["notification", "type", "read", "applied"],
        s.files.flatMap((f) => f.notifications.map((n) => [n.fileName, n.type, when(n.readAt), n.status])),
      );
    },
  },

  "invoices:list": {
    args: [],
    options: { state: { type: "string" }, month: { type: "string" } },
    help: `invoices:list [--state ${INVOICE_STATES.join("|")}] [--month YYYY-MM]
    The e-invoices and credit notes (TD04, with the invoice each corrects) in that state (all
    without --state), of that month when given, with their latest file, when it was sent and what
    SDI said of it.`,
    async run(op, _args, values) {
      const rows = await listInvoices(op, { state: text(values.state), month: text(values.month) });
      table(
        ["number", "type", "corrects", "date", "total", "order", "file", "state", "sent", "SDI's answer", "errors"],
        rows.map((i) => [
          i.documentNumber,
          DOCUMENT_TYPE[i.type],
          i.corrects ?? "-",
          day(i.date),
          euro(i.totalCents),
          i.orderCode,
          i.fileName,
          i.state,
          when(i.sentAt),
          when(i.outcomeAt),
          i.errors?.map((e) => e.code).join(" ") || "-",
        ]),
        ["total"],
      );
      console.log(
        `${rows.length} document(s)${values.state ? ` ${String(values.state)}` : ""}${values.month ? ` of ${String(values.month)}` : ""}.`,
      );
    },
  },

  "invoices:resend": {
    args: ["invoice"],
    options: {
      year: { type: "string" },
      "sdi-code": { type: "string" },
      pec: { type: "string" },
      vat: { type: "string" },
      "fiscal-code": { type: "string" },
      name: { type: "string" },
    },
    help: `invoices:resend <number | file name> [--year YYYY]
               [--sdi-code X] [--pec address] [--vat P.IVA] [--fiscal-code CF] [--name "Ragione sociale"]
    Sends an e-invoice or a credit note (NC/3, written again as a TD04) again. One SDI rejected
    (NS), within ${RESEND_DAYS} days of the rejection: the order's billing details corrected as
    given (checked as the checkout checks them), a new file under a new file name with the same
    number and date. One whose hand-over gave up after its tries: the same file again. Either way
    handed over at once.`,
    async run(op, [ref], values) {
      const { result, status } = await resendInvoice(op, ref!, {
        year: integer(values.year, "--year"),
        sdiCode: text(values["sdi-code"]),
        pec: text(values.pec),
        vat: text(values.vat),
        fiscalCode: text(values["fiscal-code"]),
        name: text(values.name),
      });
      if (result.kind === "corrected") {
        const fixed = result.corrected.map((field) => CORRECTION_OPTION[field]).join(", ") || "nothing in the order";
        console.log(
          `${status.documentNumber} of ${formatDate(status.issuedAt)} written again as ${result.fileName} (corrected: ${fixed}), ` +
            `the same number and date; the rejected ${result.rejectedFileName} stays among its files.`,
        );
      } else console.log(`${status.documentNumber}'s file ${result.fileName} queued again, its tries counted anew.`);
      if (status.state === "sent") return void console.log(`Handed over for SDI on ${when(status.transmittedAt)}.`);
      console.error(`Not handed over yet (${status.job?.lastError ?? "no error"}): the portal's job runner keeps trying.`);
      return 1;
    },
  },

  backup: {
    args: [],
    options: { out: { type: "string" } },
    help: `backup --out <file>
    A consistent copy of the whole database, taken while the portal runs, into a new file readable
    by you only. PostgreSQL: pg_dump's custom format (pg_dump of the server's major version or
    newer: PG_BINDIR, pg_config, /usr/lib/postgresql). PGlite: the running portal takes it between
    two statements (or this command, when no portal runs on DATA_DIR). Keep the secrets apart.`,
    async own(config, _args, values, actor) {
      if (typeof values.out !== "string") throw new UsageError("--out <file> is needed");
      const out = createPrivateFile(values.out);
      let result;
      try {
        result = await backupDatabase(config, out, actor);
      } catch (error) {
        unlinkSync(out.path);
        throw error;
      } finally {
        closeSync(out.fd);
      }
      console.log(`Backup of ${result.database} written to ${result.file}: ${megabytes(result.bytes)} (${result.how}).`);
      console.log(`Restore it into an empty database with: npm run admin -- restore ${result.file}`);
    },
  },

  restore: {
    args: ["file"],
    help: `restore <file>
    A backup made by \`backup\` restored into the configured database, which must be empty: with
    DATABASE_URL an empty PostgreSQL database (pg_restore, all or nothing, then ANALYZE); without,
    an empty DATA_DIR. Refuses a database that holds tables already. Start the portal with the
    secrets kept with the backup (ACTIVATION_CODE_KEY): the command checks it.`,
    async own(config, [file], _values, actor) {
      const result = await restoreDatabase(config, file!, actor);
      const { users, orders, payments } = result.counts;
      console.log(
        `Restored ${result.file} into ${result.database}: ${result.tables} tables, ${users} accounts, ${orders} orders, ${payments} payments.`,
      );
      if (result.warning) {
        console.error(`But the portal will not start on it with these settings: ${result.warning}`);
        return 1;
      }
    },
  },
};

/** What became of the credit note of a refund `orders:refund` made, when its payment was invoiced. */
function creditNoteNote(p: RefundResult["refunds"][number]): string {
  if (p.creditNote) return `; credit note ${p.creditNote.documentNumber} of ${day(p.creditNote.date)}, correcting ${p.invoice}`;
  if (!p.invoice || p.state === "failed") return "";
  if (p.state === "succeeded")
    return `; its credit note correcting ${p.invoice} is not issued yet: invoices:issue-missing issues it`;
  return `; its credit note correcting ${p.invoice} follows when the money has gone back`;
}

/** What an invoice's state means for the operator, and what to do. */
function stateNote(s: Awaited<ReturnType<typeof invoiceStatus>>): string {
  switch (s.state) {
    case "unsent":
      return `Being handed over for SDI (try ${s.job?.attempts ?? 0} of 8${s.job?.lastError ? `, last error: ${s.job.lastError}` : ""}).`;
    case "send_failed":
      return `The hand-over gave up after its tries (last error: ${s.job?.lastError ?? "-"}): invoices:resend ${s.documentNumber} sends it again.`;
    case "sent":
      return `Handed over on ${when(s.transmittedAt)}; SDI has not answered yet.`;
    case "delivered":
      return "SDI delivered it to the buyer (RC).";
    case "not_delivered":
      return "SDI could not deliver it (MC): it is in the buyer's tax drawer (their area of the Agenzia delle Entrate's site), and the receipt says so.";
    case "rejected":
      return (
        `SDI rejected it (NS): it counts as not issued. Correct what the errors name, then invoices:resend ${s.documentNumber} ` +
        `through ${formatDate(new Date(`${s.lastResendDay}T12:00:00Z`))} (the same number and date).`
      );
  }
}

const GLOBAL_OPTIONS: ParseArgsOptionsConfig = {
  yes: { type: "boolean" },
  actor: { type: "string" },
  help: { type: "boolean", short: "h" },
};

const USAGE = `usage: npm run admin -- <command> [arguments] [options] [--actor name] [--yes]

${Object.values(COMMANDS)
  .map((c) => "  " + c.help)
  .join("\n\n")}

Every command is written to the audit log as operator:<your system user, or --actor>.
With NODE_ENV=production every command needs --yes. Uses DATABASE_URL, or the embedded PGlite
in DATA_DIR (stop the portal first: PGlite is one process at a time; backup works while it runs).`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(", ")} (npm run admin -- --help).`);
    return 2;
  }
  let args: string[];
  let values: Values;
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    // No option is declared `multiple`, so each value is one string or boolean.
    ({ positionals: args, values } = parsed as { positionals: string[]; values: Values });
    if (values.help) {
      console.log(`usage: npm run admin -- ${command.help}`);
      return 0;
    }
    if (args.length !== command.args.length) {
      throw new UsageError(`${name} takes ${command.args.map((a) => `<${a}>`).join(" ") || "no arguments"}`);
    }
  } catch (error) {
    console.error(`${(error as Error).message}\nusage: npm run admin -- ${command.help}`);
    return 2;
  }
  const config = loadConfig();
  // One rule, read-only commands included: against production, the operator says --yes.
  if (config.isProduction && !values.yes) {
    console.error(`NODE_ENV=production: ${name} acts on the production database only with --yes.`);
    return 2;
  }
  const actor = operatorActor(text(values.actor) ?? systemUser());
  if ("own" in command) return (await command.own(config, args, values, actor)) ?? 0;
  return withOperatorServices(config, async ({ db, services, where, aheadMs }) => {
    if (!config.isProduction) console.error(`(database: ${where})`);
    return (await command.run({ db, services, actor }, args, values, { where, aheadMs })) ?? 0;
  });
}

function systemUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof OperatorError || error instanceof ConfigError) {
    console.error(error.message);
    process.exitCode = 1;
  } else if (error instanceof UsageError) {
    console.error(error.message);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
