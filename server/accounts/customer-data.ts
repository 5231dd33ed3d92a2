// What the portal holds about a customer, read for the customer's own download ('Scarica i tuoi
// dati', GDPR art. 15 and 20) and for the operators' `customer:show` and `customer:export`. Every
// read is an explicit list of columns: no password hash, session id, token, reset link or mail
// body ever leaves the database through here.
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Queryable } from "#server/db/client.ts";
import {
  activationCodeBatches,
  activationCodes,
  activationRedemptions,
  appSignIns,
  auditLog,
  couponRedemptions,
  coupons,
  degreeCourses,
  ebookChapters,
  emailChangeRequests,
  entitlements,
  interests,
  invoices,
  mailOutbox,
  oidcPayloads,
  orderItems,
  orders,
  passwordResetTokens,
  paymentCustomers,
  payments,
  products,
  professions,
  readingSessions,
  savedCheckoutDetails,
  sessions,
  subjects,
  subscriptionPeriods,
  subscriptions,
  universities,
  userInterests,
  users,
} from "#server/db/schema/index.ts";
import { refundsOfPayments } from "#server/payments/refunds.ts";

/** Identifies the export's layout for whoever reads it later. */
const EXPORT_FORMAT = "novalex-portal-customer-export/1";

const orderOfGrant = alias(orders, "grant_order");

async function profileOf(db: Queryable, userId: string) {
  const [row] = await db
    .select({
      id: users.id,
      email: users.email,
      firstname: users.firstname,
      lastname: users.lastname,
      mobile: users.mobile,
      profession: professions.name,
      university: universities.name,
      degreeCourse: degreeCourses.name,
      subject: subjects.name,
      acceptMarketing: users.acceptMarketing,
      acceptCustomize: users.acceptCustomize,
      migratedFromShop: users.migratedFromShop,
      status: users.status,
      createdAt: users.createdAt,
      updatedAt: users.updatedAt,
    })
    .from(users)
    .leftJoin(professions, eq(professions.id, users.professionId))
    .leftJoin(universities, eq(universities.id, users.universityId))
    .leftJoin(degreeCourses, eq(degreeCourses.id, users.degreeCourseId))
    .leftJoin(subjects, eq(subjects.id, users.subjectId))
    .where(eq(users.id, userId));
  const chosen = await db
    .select({ name: interests.name })
    .from(userInterests)
    .innerJoin(interests, eq(interests.id, userInterests.interestId))
    .where(eq(userInterests.userId, userId))
    .orderBy(asc(interests.name));
  return { ...row!, interests: chosen.map((i) => i.name) };
}

/** The portal's sessions: when and from what, never their ids or the provider's tokens they hold. */
async function portalSessionsOf(db: Queryable, userId: string) {
  return db
    .select({
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      userAgent: sessions.userAgent,
      networkPrefix: sessions.ipPrefix,
    })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(desc(sessions.lastSeenAt));
}

/** Where the account's apps last got tokens from: when and from what, never the grant's id. */
async function appSignInsOf(db: Queryable, userId: string) {
  return db
    .select({ lastSeenAt: appSignIns.lastSeenAt, userAgent: appSignIns.userAgent, networkPrefix: appSignIns.ipPrefix })
    .from(appSignIns)
    .where(eq(appSignIns.userId, userId))
    .orderBy(desc(appSignIns.lastSeenAt));
}

/** Every order, newest first, with its lines and its payments and their refunds (no provider references). */
async function ordersOf(db: Queryable, userId: string) {
  const rows = await db
    .select({
      id: orders.id,
      orderCode: orders.orderCode,
      status: orders.status,
      createdAt: orders.createdAt,
      committedAt: orders.committedAt,
      subtotalCents: orders.subtotalCents,
      discountCents: orders.discountCents,
      shipmentPriceCents: orders.shipmentPriceCents,
      totalCents: orders.totalCents,
      couponCode: orders.couponCode,
      customerFirstname: orders.customerFirstname,
      customerLastname: orders.customerLastname,
      customerEmail: orders.customerEmail,
      shipment: orders.shipment,
      billing: orders.billing,
      termsSalesAt: orders.termsSalesAt,
      termsCancelAt: orders.termsCancelAt,
    })
    .from(orders)
    .where(eq(orders.userId, userId))
    .orderBy(desc(orders.createdAt), asc(orders.orderCode));
  const ids = rows.map((o) => o.id);
  const [items, paid] = ids.length
    ? await Promise.all([
        db
          .select({
            orderId: orderItems.orderId,
            sku: products.sku,
            description: orderItems.description,
            quantity: orderItems.quantity,
            totalCents: orderItems.totalCents,
            monthlyPriceCents: orderItems.monthlyPriceCents,
          })
          .from(orderItems)
          .innerJoin(products, eq(products.id, orderItems.productId))
          .where(inArray(orderItems.orderId, ids))
          .orderBy(asc(orderItems.description)),
        db
          .select({
            id: payments.id,
            orderId: payments.orderId,
            paymentCode: payments.paymentCode,
            status: payments.status,
            amountCents: payments.amountCents,
            method: payments.methodCode,
            gateway: payments.gateway,
            cardBrand: payments.cardBrand,
            cardLast4: payments.cardLast4,
            paidAt: payments.paidAt,
            refundedAt: payments.refundedAt,
          })
          .from(payments)
          .where(inArray(payments.orderId, ids))
          .orderBy(asc(payments.paidAt)),
      ])
    : [[], []];
  const refunds = await refundsOfPayments(
    db,
    paid.map((p) => p.id),
  );
  return rows.map(({ id, ...order }) => ({
    ...order,
    items: items.filter((i) => i.orderId === id).map(({ orderId: _, ...item }) => item),
    payments: paid
      .filter((p) => p.orderId === id)
      .map(({ id: paymentId, orderId: _, ...payment }) => ({
        ...payment,
        // What went back of it, partial or whole, and where each refund stands.
        refunds: refunds.filter((r) => r.paymentId === paymentId).map(({ paymentId: __, ...refund }) => refund),
      })),
  }));
}

async function entitlementsOf(db: Queryable, userId: string) {
  return db
    .select({
      sku: products.sku,
      product: products.name,
      source: entitlements.source,
      startsAt: entitlements.startsAt,
      expiresAt: entitlements.expiresAt,
      orderCode: orderOfGrant.orderCode,
    })
    .from(entitlements)
    .innerJoin(products, eq(products.id, entitlements.productId))
    .leftJoin(orderOfGrant, eq(orderOfGrant.id, entitlements.orderId))
    .where(eq(entitlements.userId, userId))
    .orderBy(asc(products.sku), asc(entitlements.startsAt));
}

/** Subscriptions, the live one first, each with its months (the card's brand and last 4 only). */
async function subscriptionsOf(db: Queryable, userId: string) {
  const rows = await db
    .select({
      id: subscriptions.id,
      sku: products.sku,
      orderCode: orders.orderCode,
      status: subscriptions.status,
      monthlyPriceCents: subscriptions.monthlyPriceCents,
      cardBrand: subscriptions.cardBrand,
      cardLast4: subscriptions.cardLast4,
      anchorAt: subscriptions.anchorAt,
      cancelledAt: subscriptions.cancelledAt,
      endedAt: subscriptions.endedAt,
      endedReason: subscriptions.endedReason,
      createdAt: subscriptions.createdAt,
    })
    .from(subscriptions)
    .innerJoin(products, eq(products.id, subscriptions.productId))
    .innerJoin(orders, eq(orders.id, subscriptions.orderId))
    .where(eq(subscriptions.userId, userId))
    .orderBy(sql`${subscriptions.status} = 'ended'`, desc(subscriptions.createdAt));
  const months = rows.length
    ? await db
        .select({
          subscriptionId: subscriptionPeriods.subscriptionId,
          number: subscriptionPeriods.number,
          startsAt: subscriptionPeriods.startsAt,
          endsAt: subscriptionPeriods.endsAt,
          amountCents: subscriptionPeriods.amountCents,
          status: subscriptionPeriods.status,
          lastError: subscriptionPeriods.lastError,
        })
        .from(subscriptionPeriods)
        .where(
          inArray(
            subscriptionPeriods.subscriptionId,
            rows.map((s) => s.id),
          ),
        )
        .orderBy(asc(subscriptionPeriods.number))
    : [];
  return rows.map(({ id, ...sub }) => ({
    ...sub,
    months: months.filter((m) => m.subscriptionId === id).map(({ subscriptionId: _, ...month }) => month),
  }));
}

/** Who they are, where they are signed in, what they bought and hold: `customer:show`, and the export's core. */
export async function customerSummary(db: Queryable, userId: string) {
  const [profile, portalSessions, apps, customerOrders, grants, subs] = await Promise.all([
    profileOf(db, userId),
    portalSessionsOf(db, userId),
    appSignInsOf(db, userId),
    ordersOf(db, userId),
    entitlementsOf(db, userId),
    subscriptionsOf(db, userId),
  ]);
  return { profile, portalSessions, appSignIns: apps, orders: customerOrders, entitlements: grants, subscriptions: subs };
}

/**
 * Everything the portal holds about the customer, as JSON-ready data (GDPR art. 15 and 20). Mails
 * are listed without their bodies (a password link is a credential), the identity provider's
 * records by kind and expiry (their ids are tokens), payments without the provider's references.
 * The customer's own download ('Scarica i tuoi dati') and the operators' `customer:export` give this.
 */
export async function customerData(db: Queryable, customer: { id: string; email: string | null }, exportedAt: Date) {
  const userId = customer.id;
  const [
    summary,
    saved,
    redemptions,
    couponUses,
    reading,
    resetLinks,
    emailChanges,
    mails,
    providerAccounts,
    provider,
    issuedInvoices,
    audit,
  ] = await Promise.all([
    customerSummary(db, userId),
    db
      .select({
        shipment: savedCheckoutDetails.shipment,
        billing: savedCheckoutDetails.billing,
        updatedAt: savedCheckoutDetails.updatedAt,
      })
      .from(savedCheckoutDetails)
      .where(eq(savedCheckoutDetails.userId, userId)),
    db
      .select({
        redeemedAt: activationRedemptions.redeemedAt,
        sku: products.sku,
        batch: activationCodeBatches.label,
        orderCode: orders.orderCode,
      })
      .from(activationRedemptions)
      .innerJoin(activationCodes, eq(activationCodes.id, activationRedemptions.codeId))
      .innerJoin(activationCodeBatches, eq(activationCodeBatches.id, activationCodes.batchId))
      .innerJoin(products, eq(products.id, activationCodeBatches.productId))
      .innerJoin(orders, eq(orders.id, activationRedemptions.orderId))
      .where(eq(activationRedemptions.userId, userId))
      .orderBy(asc(activationRedemptions.redeemedAt)),
    db
      .select({ couponCode: coupons.code, orderCode: orders.orderCode, createdAt: couponRedemptions.createdAt })
      .from(couponRedemptions)
      .innerJoin(coupons, eq(coupons.id, couponRedemptions.couponId))
      .innerJoin(orders, eq(orders.id, couponRedemptions.orderId))
      .where(eq(couponRedemptions.userId, userId))
      .orderBy(asc(couponRedemptions.createdAt)),
    db
      .select({
        sku: products.sku,
        startedAt: readingSessions.startedAt,
        lastReadAt: readingSessions.lastReadAt,
        chapter: ebookChapters.title,
      })
      .from(readingSessions)
      .innerJoin(products, eq(products.id, readingSessions.productId))
      .leftJoin(ebookChapters, eq(ebookChapters.id, readingSessions.currentChapterId))
      .where(eq(readingSessions.userId, userId))
      .orderBy(desc(readingSessions.lastReadAt)),
    db
      .select({
        purpose: passwordResetTokens.purpose,
        createdAt: passwordResetTokens.createdAt,
        expiresAt: passwordResetTokens.expiresAt,
        usedAt: passwordResetTokens.usedAt,
      })
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.userId, userId))
      .orderBy(asc(passwordResetTokens.createdAt)),
    db
      .select({
        newEmail: emailChangeRequests.newEmail,
        createdAt: emailChangeRequests.createdAt,
        expiresAt: emailChangeRequests.expiresAt,
        usedAt: emailChangeRequests.usedAt,
      })
      .from(emailChangeRequests)
      .where(eq(emailChangeRequests.userId, userId))
      .orderBy(asc(emailChangeRequests.createdAt)),
    db
      .select({ to: mailOutbox.to, subject: mailOutbox.subject, createdAt: mailOutbox.createdAt, sentAt: mailOutbox.sentAt })
      .from(mailOutbox)
      // The account's own mails, wherever they went; never by address: one the account gave up
      // may since belong to another account, whose mails are not this customer's to read.
      .where(and(eq(mailOutbox.userId, userId), eq(mailOutbox.inDownload, true)))
      .orderBy(asc(mailOutbox.seq)),
    db
      .select({ gateway: paymentCustomers.gateway, createdAt: paymentCustomers.createdAt })
      .from(paymentCustomers)
      .where(eq(paymentCustomers.userId, userId)),
    db
      .select({ kind: oidcPayloads.type, expiresAt: oidcPayloads.expiresAt })
      .from(oidcPayloads)
      .where(sql`${oidcPayloads.payload} ->> 'accountId' = ${userId}`)
      .orderBy(asc(oidcPayloads.type), asc(oidcPayloads.expiresAt)),
    db
      .select({
        /** TD01 an invoice, TD04 a credit note (a refund). */
        type: invoices.type,
        documentNumber: invoices.documentNumber,
        issuedAt: invoices.issuedAt,
        totalCents: invoices.totalCents,
        orderCode: orders.orderCode,
        fileName: invoices.fileName,
      })
      .from(invoices)
      .innerJoin(orders, eq(orders.id, invoices.orderId))
      .where(eq(invoices.userId, userId))
      .orderBy(asc(invoices.issuedAt)),
    db
      .select({
        event: auditLog.event,
        createdAt: auditLog.createdAt,
        ip: auditLog.ip,
        subject: auditLog.subject,
        // Who acted, by role: an operator's login (`operator:<system user>`) is not the customer's to know.
        actor: sql<string | null>`case when ${auditLog.actor} like 'operator:%' then 'operator' else ${auditLog.actor} end`,
        details: auditLog.details,
      })
      .from(auditLog)
      .where(eq(auditLog.userId, userId))
      .orderBy(asc(auditLog.seq)),
  ]);
  const { profile, portalSessions, ...bought } = summary;
  return {
    format: EXPORT_FORMAT,
    exportedAt,
    profile,
    savedCheckoutDetails: saved[0] ?? null,
    ...bought,
    activationRedemptions: redemptions,
    couponRedemptions: couponUses,
    /** The e-invoices and credit notes made out to them (each one's XML downloads from its payment's receipt). */
    invoices: issuedInvoices,
    readingSessions: reading,
    portalSessions,
    identityProviderRecords: provider,
    passwordLinks: resetLinks,
    emailChangeRequests: emailChanges,
    mails,
    paymentProviderAccounts: providerAccounts,
    auditLog: audit,
  };
}
