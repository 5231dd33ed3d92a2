// Subscriptions inserted in bulk with SQL, for the measurements of the job runner (npm run
// bench:subscriptions) and the months falling due during npm run load: N customers, each with a
// paid EDU order, a saved sandbox card (a setup that succeeded) and a subscription anchored at
// `anchor`: month 1 paid, month 2 scheduled and due at `due` (month 3 starts at `monthThree`).
// `tag` (lower-case letters and digits) keeps the rows of several batches apart: e-mails
// abbonato<i>@<tag>.example, orders NX<TAG>-<i>, payments PX<TAG>-<i>, sandbox ids *_<tag>_<i> (the underscore keeps batch 1's 11th apart from batch 11's 1st).
import { sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";

export async function seedSubscriptions(
  db: Database,
  n: number,
  { anchor, due, monthThree }: { anchor: Date; due: Date; monthThree: Date },
  tag = "bench",
) {
  if (!/^[a-z0-9]+$/.test(tag)) throw new Error(`the seed's tag must be lower-case letters and digits, got "${tag}"`);
  const [a, d, e] = [anchor, due, monthThree].map((t) => sql`${t.toISOString()}::timestamptz`);
  const upper = tag.toUpperCase();
  await db.transaction(async (tx) => {
    const statements = [
      sql`create temp table bench_seed on commit drop as
        select i, gen_random_uuid() as user_id, gen_random_uuid() as order_id, gen_random_uuid() as sub_id,
          gen_random_uuid() as first_id, 'sbx_seti_' || ${tag}::text || '_' || i as setup_id,
          'abbonato' || i || '@' || ${tag}::text || '.example' as email,
          p.id as product_id, p.monthly_price_cents as price
        from generate_series(1, ${n}::int) as i, products p where p.code = ${EDU_PRODUCT_CODE}`,
      sql`insert into users (id, email, firstname, lastname, created_at, updated_at)
        select user_id, email, 'Abbonato', 'N. ' || i, ${a}, ${a} from bench_seed`,
      sql`insert into orders (id, order_code, user_id, status, total_cents, subtotal_cents, checkout_product_id,
          payment_hub, customer_firstname, customer_lastname, customer_email, created_at, committed_at, updated_at)
        select order_id, 'NX' || ${upper}::text || '-' || i, user_id, 'payed', price, price, product_id, 'card',
          'Abbonato', 'N. ' || i, email, ${a}, ${a}, ${a} from bench_seed`,
      sql`insert into order_items (order_id, product_id, description, quantity, unit_price_cents, total_cents,
          monthly_price_cents, product_type_code, vat_rate_bps)
        select s.order_id, p.id, p.name, 1, s.price, s.price, s.price, t.code, p.vat_rate_bps
        from bench_seed s join products p on p.id = s.product_id join product_types t on t.id = p.product_type_id`,
      sql`insert into sandbox_gateway_objects (id, kind, idempotency_key, data, created_at)
        select setup_id, 'setup', ${tag}::text || ':setup:' || i, jsonb_build_object('status', 'succeeded',
          'clientSecret', 'sbx_secret_' || ${tag}::text || '_' || i, 'metadata', '{}'::jsonb,
          'card', jsonb_build_object('brand', 'visa', 'last4', '4242', 'behaviour', 'succeeds'), 'errorMessage', null), ${a}
        from bench_seed`,
      sql`insert into subscriptions (id, user_id, product_id, order_id, status, gateway, setup_id, card_brand, card_last4,
          monthly_price_cents, anchor_at, created_at, updated_at)
        select sub_id, user_id, product_id, order_id, 'active', 'sandbox', setup_id, 'visa', '4242', price, ${a}, ${a}, ${a}
        from bench_seed`,
      sql`insert into subscription_periods (id, subscription_id, number, starts_at, ends_at, amount_cents, status, tries,
          next_attempt_at, created_at, updated_at)
        select first_id, sub_id, 1, ${a}, ${d}, price, 'paid', 1, null::timestamptz, ${a}, ${a} from bench_seed
        union all
        select gen_random_uuid(), sub_id, 2, ${d}, ${e}, price, 'scheduled', 0, ${d}, ${a}, ${a} from bench_seed`,
      sql`insert into payments (payment_code, order_id, user_id, gateway, method_code, amount_cents, charge_id,
          card_brand, card_last4, paid_at, subscription_period_id, created_at)
        select 'PX' || ${upper}::text || '-' || i, order_id, user_id, 'sandbox', 'card_setup', price, 'sbx_ch_' || ${tag}::text || '_' || i,
          'visa', '4242', ${a}, first_id, ${a} from bench_seed`,
      sql`insert into entitlements (user_id, product_id, source, starts_at, expires_at, order_id, created_at)
        select user_id, product_id, 'subscription', ${a}, ${d}, order_id, ${a} from bench_seed`,
    ];
    for (const statement of statements) await tx.execute(statement);
  });
  await db.execute(sql`analyze`);
}
