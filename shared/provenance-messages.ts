// How the customer got a product, in words (the account console's "How you got each product"):
// the compact line of a dashboard card and the lines of 'I miei acquisti', in one place for the
// pages and the tests that assert them. Days are Rome's, written out ("12 marzo 2026").
import type { AccessGrant, GrantOrigin } from "#server/library/types.ts";
import { formatLongDate, withArticle } from "./format.ts";
import { INSTALMENTS_PER_TERM } from "./subscription.ts";

export const PROVENANCE_MESSAGES = {
  title: "Come hai ottenuto i tuoi prodotti",
  intro: "Per ogni prodotto, come lo hai ottenuto e fino a quando puoi usarlo.",
  code: "Attivato con il codice del libro",
  purchase: "Acquistato",
  subscription: "Incluso nell'abbonamento EDU",
  /** A subscription's month whose instalment is not known. */
  subscriptionMonth: "Mese dell'abbonamento EDU",
  operator: "Concesso dal servizio clienti",
  noEnd: "Accesso senza scadenza",
  /** After an order's code, for screen readers: the link opens its receipt. */
  receiptOf: "ricevuta",
} as const;

const M = PROVENANCE_MESSAGES;
const day = (at: Date) => formatLongDate(at);

/**
 * 'Attivato con il codice del libro il 12 marzo 2026', 'Acquistato con l'ordine NX… il …' (the
 * order when given), 'Incluso nell'abbonamento EDU (rata 3 di 6)', 'Concesso dal servizio clienti
 * il …'. Without an order or an instalment (the dashboard's card reads neither) it says less.
 */
export function obtainedLine(origin: Pick<GrantOrigin, "source" | "at"> & Partial<GrantOrigin>): string {
  const on = withArticle("il", day(origin.at));
  switch (origin.source) {
    case "activation_code":
      return `${M.code} ${on}`;
    case "purchase":
      return origin.orderCode ? `${M.purchase} con l'ordine ${origin.orderCode} ${on}` : `${M.purchase} ${on}`;
    case "subscription":
      return origin.instalment ? `${M.subscription} (rata ${origin.instalment} di ${INSTALMENTS_PER_TERM})` : M.subscriptionMonth;
    case "operator":
      return `${M.operator} ${on}`;
  }
}

/** 'Accesso fino al 12 settembre 2027', or 'Accesso senza scadenza'. */
export function accessUntilLine(expiresAt: Date | null): string {
  return expiresAt ? `Accesso fino ${withArticle("al", day(expiresAt))}` : M.noEnd;
}

/** A grant that starts later: 'Poi, dal 12 settembre 2027 al 12 marzo 2028: attivato con il codice del libro il …'. */
export function nextGrantLine(grant: AccessGrant): string {
  const from = withArticle("dal", day(grant.startsAt));
  const span = grant.expiresAt ? `${from} ${withArticle("al", day(grant.expiresAt))}` : `${from}, senza scadenza`;
  const how = obtainedLine(grant);
  return `Poi, ${span}: ${how.charAt(0).toLowerCase()}${how.slice(1)}`;
}

/** 'Accesso scaduto il 12 settembre 2027'. */
export function endedLine(expiresAt: Date): string {
  return `Accesso scaduto ${withArticle("il", day(expiresAt))}`;
}
