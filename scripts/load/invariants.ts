// What must hold after the load and its faults, checked in SQL against the run's private database
// and against what the virtual customers saw (their ledger): every paid order charged once with its
// access, every charge for its order's total and only for a paid order, a declined charge leaving
// nothing behind, no order left waiting for a payment once the leases have passed, every
// subscription month due paid once, no activation code used beyond its uses, and nothing a
// customer was told is done missing from the database.
import { sql, type SQL } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { hashCode, normalizeCode } from "#server/library/codes.ts";
import { ABANDONED_AFTER_MS, CHARGE_LEASE_MS, UNSTARTED_AFTER_MS } from "#server/payments/service.ts";
import type { Ledger } from "./customers.ts";

/**
 * How long after its lease (or its wait) a payment attempt left by a crash may stay open: every
 * instance runs the payment reconciler each minute (PAYMENT_RECONCILE_INTERVAL_MS, server/services.ts),
 * and a round takes a few seconds under the load.
 */
const RECONCILER_ROUND_MS = 60_000 + 15_000;
/**
 * By when a card payment caught by a crash is finished: its charge's lease runs out, then the
 * reconciler's next round takes it over with the same idempotency keys and records it.
 */
export const PAYMENT_RECOVERY_MS = CHARGE_LEASE_MS + RECONCILER_ROUND_MS;

/**
 * The subscriptions the run inserts with SQL (their month 1 "paid" without a gateway: see
 * scripts/bench/subscription-seed.ts, tag lfseed<n>): their orders have no checkout of their own.
 */
export const SEED_TAG = "lfseed";
const SEEDED_ORDERS = `NX${SEED_TAG.toUpperCase()}%`;

export type Check = { label: string; value: number; want: number; ok: boolean; examples?: string[] };

const rowsOf = async <T>(db: Database, query: SQL) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;

/** Months due before `until` still to be charged, and checkout payments still under way. */
export async function pendingWork(db: Database, until: Date): Promise<{ months: number; charging: number; attempts: number }> {
  const [row] = await rowsOf<{ months: number; charging: number; attempts: number }>(
    db,
    sql`select
      (select count(*) from subscription_periods where number > 1 and starts_at <= ${until.toISOString()}::timestamptz
        and status in ('scheduled', 'charging'))::int as months,
      (select count(*) from subscription_periods where status = 'charging')::int as charging,
      (select count(*) from payment_attempts where status in ('charging', 'setup_succeeded'))::int as attempts`,
  );
  return row!;
}

/**
 * The database's checks: each a count of rows breaking a rule (want 0), or a count to report.
 * `atAnyInstant`: only the rules that hold at every moment, work under way or not (each holds
 * because one transaction writes all it relates), for a copy taken in the middle of the run
 * (scripts/load/restore-proof.ts); the others hold once the work under way has settled.
 */
export async function databaseChecks(
  db: Database,
  loadEnd: Date,
  { atAnyInstant = false, now = new Date() }: { atAnyInstant?: boolean; now?: Date } = {},
): Promise<{ checks: Check[]; figures: Record<string, number> }> {
  const end = sql`${loadEnd.toISOString()}::timestamptz`;
  const waitedOut = stillWaitingAfterLeases(now);
  const rules: { label: string; query: SQL; settled?: true }[] = [
    {
      label: "paid orders without exactly one checkout payment",
      query: sql`select o.order_code as example from orders o where o.status = 'payed' and o.total_cents > 0
        and o.order_code not like ${SEEDED_ORDERS}
        and (select count(*) from payments p where p.order_id = o.id and (p.subscription_period_id is null
          or exists (select 1 from subscription_periods sp where sp.id = p.subscription_period_id and sp.number = 1))) <> 1`,
    },
    {
      label: "paid orders without exactly one succeeded charge at the gateway",
      query: sql`select o.order_code as example from orders o where o.status = 'payed' and o.total_cents > 0
        and o.order_code not like ${SEEDED_ORDERS}
        and (select count(*) from sandbox_gateway_objects g where g.kind = 'charge'
          and g.data->'metadata'->>'order_id' = o.id::text and g.data->>'status' = 'succeeded') <> 1`,
    },
    {
      label: "paid orders missing the access they sold",
      query: sql`select o.order_code || ' ' || p.sku as example from orders o
        join order_items i on i.order_id = o.id join products p on p.id = i.product_id
        where o.status = 'payed' and p.grants_access
          and not exists (select 1 from entitlements e where e.order_id = o.id and e.product_id = i.product_id)`,
    },
    {
      settled: true,
      label: "succeeded charges with no payment recorded (money taken, not booked)",
      query: sql`select g.id as example from sandbox_gateway_objects g where g.kind = 'charge' and g.data->>'status' = 'succeeded'
        and not exists (select 1 from payments p where p.gateway = 'sandbox' and p.charge_id = g.id)`,
    },
    {
      settled: true,
      label: "succeeded charges whose order is not paid (nor the charge given back)",
      query: sql`select g.id || ' ' || o.status as example from sandbox_gateway_objects g
        join orders o on o.id::text = g.data->'metadata'->>'order_id'
        where g.kind = 'charge' and g.data->>'status' = 'succeeded' and o.status <> 'payed'
          and not exists (select 1 from payments p join payment_refunds r on r.payment_id = p.id
            where p.gateway = 'sandbox' and p.charge_id = g.id and r.state <> 'failed')`,
    },
    {
      // A succeeded one: a declined charge's order may change afterwards (a discount code removed).
      label: "succeeded charges (or their payments) whose amount is not their order's total",
      query: sql`select g.id || ' ' || (g.data->>'amountCents') || ' <> ' || (o.total_cents + o.shipment_price_cents) as example
        from sandbox_gateway_objects g join orders o on o.id::text = g.data->'metadata'->>'order_id'
        where g.kind = 'charge' and g.data->>'status' = 'succeeded'
          and ((g.data->>'amountCents')::int <> o.total_cents + o.shipment_price_cents
            or exists (select 1 from payments p where p.gateway = 'sandbox' and p.charge_id = g.id
              and p.amount_cents <> (g.data->>'amountCents')::int))`,
    },
    {
      settled: true,
      label:
        "declined charges that left something behind (a payment, an open attempt, access or a subscription of an unpaid order)",
      query: sql`select g.id as example from sandbox_gateway_objects g
        left join orders o on o.id::text = g.data->'metadata'->>'order_id'
        where g.kind = 'charge' and g.data->>'status' = 'failed' and (
          exists (select 1 from payments p where p.gateway = 'sandbox' and p.charge_id = g.id)
          or exists (select 1 from payment_attempts a where a.charge_id = g.id and a.status <> 'failed')
          or (o.status is distinct from 'payed' and (exists (select 1 from entitlements e where e.order_id = o.id)
            or exists (select 1 from subscriptions s where s.order_id = o.id))))`,
    },
    {
      settled: true,
      label: "orders left waiting for a payment once the leases have passed",
      query: sql`select o.order_code || ' ' || coalesce(a.status, 'no open attempt') as example from orders o
        left join payment_attempts a on a.order_id = o.id
          and a.status in ('created', 'awaiting_customer', 'setup_succeeded', 'charging')
        where o.status = 'waitforpayment' and (a.id is null or ${waitedOut})`,
    },
    {
      settled: true,
      label: "checkout payments still under way after the settling wait",
      query: sql`select o.order_code || ' ' || a.status as example from payment_attempts a join orders o on o.id = a.order_id
        where a.status in ('charging', 'setup_succeeded')`,
    },
    {
      settled: true,
      label: "subscription months due in the run not paid",
      query: sql`select sp.id::text || ' ' || sp.status as example from subscription_periods sp
        where sp.number > 1 and sp.starts_at <= ${end} and sp.status <> 'paid'`,
    },
    {
      settled: true,
      label: "subscription months due in the run without exactly one payment",
      query: sql`select sp.id::text as example from subscription_periods sp
        where sp.number > 1 and sp.starts_at <= ${end}
          and (select count(*) from payments p where p.subscription_period_id = sp.id) <> 1`,
    },
    {
      label: "subscription months charged more than once at the gateway",
      query: sql`select g.data->'metadata'->>'period_id' as example from sandbox_gateway_objects g
        where g.kind = 'charge' and g.data->>'status' = 'succeeded' and g.data->'metadata' ? 'period_id'
        group by 1 having count(*) > 1`,
    },
    {
      label: "paid subscription months missing their month of access",
      query: sql`select sp.id::text as example from subscription_periods sp join subscriptions s on s.id = sp.subscription_id
        where sp.number > 1 and sp.status = 'paid' and not exists (select 1 from entitlements e
          where e.user_id = s.user_id and e.product_id = s.product_id and e.starts_at <= sp.starts_at and e.expires_at >= sp.ends_at)`,
    },
    {
      label: "activation codes used more than their batch allows",
      query: sql`select c.id::text as example from activation_codes c join activation_code_batches b on b.id = c.batch_id
        where c.uses > b.max_uses
          or (select count(*) from activation_redemptions r where r.code_id = c.id) > b.max_uses`,
    },
    {
      label: "activation codes whose use count differs from their redemptions",
      query: sql`select c.id::text as example from activation_codes c
        where c.uses <> (select count(*) from activation_redemptions r where r.code_id = c.id)`,
    },
    {
      label: "activations without their paid 0 € order or their access",
      query: sql`select r.id::text as example from activation_redemptions r join orders o on o.id = r.order_id
        where o.status <> 'payed' or not exists (select 1 from entitlements e where e.order_id = o.id)`,
    },
  ];
  const checks: Check[] = [];
  for (const { label, query } of rules.filter((rule) => !(atAnyInstant && rule.settled))) {
    const rows = await rowsOf<{ example: string }>(db, query);
    checks.push({ label, value: rows.length, want: 0, ok: rows.length === 0, examples: rows.slice(0, 5).map((r) => r.example) });
  }
  const [figures] = await rowsOf<Record<string, number>>(
    db,
    sql`select
      (select count(*) from orders where status = 'payed' and total_cents > 0)::int as paid_orders,
      (select count(*) from orders where status = 'payed' and total_cents = 0)::int as activation_orders,
      (select count(*) from payments)::int as payments,
      (select count(*) from subscription_periods where number > 1 and starts_at <= ${end} and status = 'paid')::int as months_paid_in_run,
      (select count(*) from activation_redemptions)::int as redemptions,
      (select count(*) from sandbox_gateway_objects where kind = 'charge' and data->>'status' = 'failed')::int as declined_charges,
      (select count(*) from orders o join payment_attempts a on a.order_id = o.id
        where o.status = 'waitforpayment' and a.status in ('created', 'awaiting_customer', 'setup_succeeded', 'charging')
          and not ${waitedOut})::int as orders_waiting_within_leases,
      (select count(*) from sessions)::int as sessions`,
  );
  return { checks, figures: figures! };
}

/**
 * An open attempt (`a`) that its own time has let go: a charge whose lease ran out, a card set up
 * that nobody charged, an attempt whose card step never began (its instance died first), a card
 * step the customer left, each a reconciler's round later (server/payments/service.ts, reconcile).
 */
function stillWaitingAfterLeases(now: Date): SQL {
  const at = (ms: number) => sql`${new Date(now.getTime() - ms - RECONCILER_ROUND_MS).toISOString()}::timestamptz`;
  return sql`((a.status = 'charging' and a.lease_until <= ${at(0)})
    or (a.status = 'setup_succeeded' and a.updated_at <= ${at(0)})
    or (a.status = 'created' and a.updated_at <= ${at(UNSTARTED_AFTER_MS)})
    or (a.status = 'awaiting_customer' and a.updated_at <= ${at(ABANDONED_AFTER_MS)}))`;
}

/**
 * After each crash (an instance killed, PostgreSQL stopped at once), within the leases' time: every
 * card charge made before the crash ended is recorded as its order's payment by the end of
 * PAYMENT_RECOVERY_MS (the order paid with its access: the checks above, which hold at every
 * moment). Read afterwards from the rows' times.
 */
export async function crashRecoveryChecks(db: Database, crashes: { what: string; end: Date }[]): Promise<Check[]> {
  const checks: Check[] = [];
  for (const { what, end } of crashes) {
    const by = new Date(end.getTime() + PAYMENT_RECOVERY_MS);
    const rows = await rowsOf<{ example: string }>(
      db,
      sql`select g.id as example from sandbox_gateway_objects g
        where g.kind = 'charge' and g.data->>'status' = 'succeeded' and g.data->'metadata' ? 'order_id'
          and g.created_at <= ${end.toISOString()}::timestamptz
          and not exists (select 1 from payments p join orders o on o.id = p.order_id
            where p.gateway = 'sandbox' and p.charge_id = g.id and p.created_at <= ${by.toISOString()}::timestamptz
              and (o.status = 'payed' or exists (select 1 from payment_refunds r where r.payment_id = p.id and r.state <> 'failed')))`,
    );
    checks.push({
      label: `${what}: charges made before it not recorded, order paid, within ${PAYMENT_RECOVERY_MS / 1000} s`,
      value: rows.length,
      want: 0,
      ok: rows.length === 0,
      examples: rows.slice(0, 5).map((r) => r.example),
    });
  }
  return checks;
}

/**
 * What the customers were told against the database: every order they saw confirmed is paid; every
 * code they saw activated is redeemed by them; no code won by more customers than its uses; every
 * EDU purchase they saw confirmed is a subscription.
 */
export async function ledgerChecks(
  db: Database,
  ledger: Ledger,
  codeKey: string,
  maxUses: Map<string, number>,
): Promise<Check[]> {
  const confirmedOrders = ledger.purchases.filter((p) => p.outcome === "confirmed").map((p) => p.orderPath.split("/")[2]!);
  const paid = new Set(
    (
      await rowsOf<{ ref: string }>(
        db,
        sql`select order_code as ref from orders where status = 'payed' union select id::text from orders where status = 'payed'`,
      )
    ).map((r) => r.ref),
  );
  const lostOrders = confirmedOrders.filter((ref) => !paid.has(ref));

  const activated = ledger.activations.filter((a) => a.outcome === "activated");
  const redeemed = new Set(
    (
      await rowsOf<{ key: string }>(
        db,
        sql`select c.code_hash || ' ' || u.email as key from activation_redemptions r
          join activation_codes c on c.id = r.code_id join users u on u.id = r.user_id`,
      )
    ).map((r) => r.key),
  );
  const wins = new Map<string, number>();
  for (const a of activated) wins.set(a.code, (wins.get(a.code) ?? 0) + 1);
  const overWon = [...wins].filter(([code, n]) => n > (maxUses.get(code) ?? 1)).map(([code]) => code);

  const eduEmails = ledger.eduBought.map((e) => e.email);
  const subscribed = new Set(
    (
      await rowsOf<{ email: string }>(
        db,
        sql`select u.email from subscriptions s join users u on u.id = s.user_id where s.status in ('active', 'past_due')`,
      )
    ).map((r) => r.email),
  );
  const lostSubscriptions = eduEmails.filter((email) => !subscribed.has(email));

  return [
    {
      label: "orders a customer saw confirmed that are not paid",
      value: lostOrders.length,
      want: 0,
      ok: lostOrders.length === 0,
      examples: lostOrders.slice(0, 5),
    },
    {
      label: "codes a customer saw activated with no redemption of theirs",
      value: activated.filter((a) => !redeemed.has(`${hashCode(codeKey, normalizeCode(a.code)!)} ${a.email}`)).length,
      want: 0,
      ok: activated.every((a) => redeemed.has(`${hashCode(codeKey, normalizeCode(a.code)!)} ${a.email}`)),
    },
    {
      label: "codes more customers saw activated than the code allows",
      value: overWon.length,
      want: 0,
      ok: overWon.length === 0,
      examples: overWon.slice(0, 5),
    },
    {
      label: "EDU purchases a customer saw confirmed with no live subscription",
      value: lostSubscriptions.length,
      want: 0,
      ok: lostSubscriptions.length === 0,
      examples: lostSubscriptions.slice(0, 5),
    },
  ];
}
