// Addresses inside the portal and out: the course platform, the checkout, the reader, receipts.
//
// The portal's own addresses are built by React Router's href() from the route patterns of
// app/routes.ts, so a renamed or mistyped route is a type error here rather than a dead link
// (decision 026). Only what no route of app/routes.ts answers is written by hand.
import type { href as routerHref } from "react-router";
import type { ShortLandingVariant } from "./landing-variants.ts";

/**
 * React Router's href(), with its types: a pattern that is no route of app/routes.ts, or a
 * parameter it does not have, is a type error (decision 026). Written here for the portal's
 * patterns (no optional segment, no splat linked to), because React Router's own would add its
 * bytes to every public page's JavaScript, whose budget they are at the edge of. Like href(), it
 * drops the pattern's trailing slash; it encodes each parameter with encodeURIComponent, as the
 * portal always has (links.test.ts pins each address).
 */
export const href: typeof routerHref = (path: string, params?: Record<string, unknown>) =>
  path.replace(/\/:([\w-]+)/g, (_, name: string) => `/${encodeURIComponent(String(params?.[name]))}`).replace(/\/+$/, "") || "/";

/** A page as the portal links it: with the trailing slash it is served at (spec §2), which href() drops. */
function page(address: string): string {
  return `${address}/`;
}

// The portal's own pages (spec §2). Each address is marked pure: a browser bundle leaves out the
// ones its pages never use (the server's, the mails'), which would otherwise weigh on every public
// page's JavaScript budget.

/** The home page: it sends the signed-in customer to their dashboard. */
export const HOME_PATH = /* @__PURE__ */ href("/");

/** The account console's 'Dove hai effettuato l'accesso': the account's sessions. */
export const SESSIONS_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profile/sessions"));

/** 'Scarica i tuoi dati': a POST answered with the JSON file. */
export const DATA_EXPORT_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profile/data"));

/** The account's privacy and marketing preferences. */
export const PREFERENCES_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profile/preferences"));

/** The signed-in customer's password change. */
export const CHANGE_PASSWORD_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profile/change-password"));

/** Account deletion: a warning, 'Annulla' and 'Conferma'. */
export const DELETE_ACCOUNT_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profile/delete-user"));

/** Where account deletion ends: its confirmation, for the visitor it just signed out. */
export const ACCOUNT_DELETED_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profile/delete-user/confermata"));

/** Its dialog's id: the deletion sends the visitor to it (#…), so that without JavaScript the first Tab starts there. */
export const ACCOUNT_DELETED_DIALOG_ID = "account-cancellato";

/** The first access: the profile a new account completes. */
export const FIRST_ACCESS_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profilo/primoaccesso"));

/** The password reset's request. */
export const FORGOT_PASSWORD_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/forgot-password"));

/** 'Password aggiornata': where a reset by link ends. */
export const PASSWORD_UPDATED_PATH = /* @__PURE__ */ href("/forgot-password/password-updated");

/** The reset link mailed to a customer who forgot their password. */
export function passwordResetPath(token: string): string {
  return href("/forgot-password/reset/:token", { token });
}

/** The reset link mailed to an account migrated from the old shop ('Reimposta la password'). */
export function migratedAccountResetPath(token: string): string {
  return href("/mandatory-password/reset/:token", { token });
}

/** The link mailed to a new address, which confirms it. */
export function emailConfirmationPath(token: string): string {
  return href("/profile/confirm-email/:token", { token });
}

/** The help center. */
export const HELP_CENTER_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/help-center"));

/** What the customer bought: purchases, payments, receipts. */
export const MY_PRODUCTS_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/my-products"));

/** The customer's EDU subscription: where they see it, cancel, resume and change its card. */
export const SUBSCRIPTION_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/my-products/abbonamento"));

/** 'Aggiorna carta' of the EDU subscription: a new card step. */
export const SUBSCRIPTION_CARD_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/my-products/abbonamento/carta"));

/** The signed-in customer's home: their library. */
export const DASHBOARD_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/dashboard"));

/** Registration. */
export const REGISTER_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/register"));

/** 'Il mio account'. */
export const PROFILE_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/profile"));

/** The sign-in (it starts the identity provider's flow); ?redirect= says where to come back. */
export const LOGIN_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/login"));

/** Where the identity provider sends the browser back after the sign-in. */
export const OAUTH_CALLBACK_PATH = /* @__PURE__ */ href("/oauthcb");

/** The identity provider's login screen of a sign-in under way, rendered by the portal. */
export function loginInteractionPath(uid: string): string {
  return href("/accedi/:uid", { uid });
}

/** 'Accedi con Google' on the login screen: the sign-in goes on through social login. */
export function socialLoginPath(uid: string): string {
  return href("/accedi/:uid/social", { uid });
}

/** The redirect URI registered at the upstream provider of social login. */
export const SOCIAL_LOGIN_CALLBACK_PATH = /* @__PURE__ */ href("/accedi/social/callback");

/** Sign-out (a POST). */
export const LOGOUT_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/logout"));

/** The EDU subscription's page. */
export const EDU_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/edu"));

/** The storefront's main landing page (spec §2), where a page that does not exist sends visitors. */
export const LANDING_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/landingpage/:variant", { variant: "landing" }));

/** A landing page at its short address, e.g. /universita (spec §2), linked without a slash. */
export function shortLandingPath(variant: ShortLandingVariant): string {
  return href(`/${variant}`);
}

/**
 * The activation prompt's addresses from the printed books and the storefront (spec §2). These
 * are the routes' source, not a copy: app/routes.ts declares one route for each.
 */
export const ACTIVATION_PROMPT_PATHS = [
  "/attivaprodotto",
  "/attivaomaggio",
  "/attivaebook",
  "/attivaebookedu",
  "/attivadaecomm",
] as const;

/** The activation prompt (spec §2), the printed books' address. */
export const ACTIVATION_PROMPT_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/attivaprodotto"));

/** The activation prompt of the EDU books, which the EDU page offers to those holding a code. */
export const EDU_ACTIVATION_PROMPT_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/attivaebookedu"));

/** Where the activation form posts a code (routes/activate-product.tsx). */
export const ACTIVATE_PRODUCT_PATH = /* @__PURE__ */ href("/prodotti/attiva");

/**
 * 'Accedi al corso': the course on the course platform, by its moodle_id. Another site's address,
 * so it is written by hand.
 */
export function courseUrl(coursePlatform: string, moodleId: number): string {
  return `${coursePlatform}/course/view.php?id=${moodleId}`;
}

/** A product's cover, generated by the portal (app/routes/media.cover.ts). */
export function coverPath(cover: string): string {
  return href("/media/copertine/:file", { file: `${cover}.svg` });
}

/** The built-in reader's page of a product (GET shows it, POST records the chapter). */
export function readerPath(productId: string): string {
  return page(href("/leggi/:productId", { productId }));
}

/** 'Inizia a leggere' / 'Continua a leggere' post here: the reading session starts or resumes. */
export function readerOpenPath(productId: string): string {
  return href("/leggi/:productId/apri", { productId });
}

/**
 * 'Acquista ora' / 'Acquista di nuovo': the checkout of a product, by its business code when it
 * has one (abbonamentoedu), else by its SKU.
 */
export function checkoutPath(productCode: string): string {
  return page(href("/create-checkout/:productcode", { productcode: productCode }));
}

/** An order's checkout page; the card step returns here with the setup's query parameters. */
export function checkoutOrderPath(orderId: string): string {
  return page(href("/checkout/:order", { order: orderId }));
}

/** An order's receipt, or one payment's (spec §2: /ricevuta/:ordercode/:paymentcode). */
export function receiptPath(orderCode: string, paymentCode?: string): string {
  return paymentCode
    ? page(href("/ricevuta/:ordercode/:paymentcode", { ordercode: orderCode, paymentcode: paymentCode }))
    : page(href("/ricevuta/:ordercode", { ordercode: orderCode }));
}

/** The e-invoice (FatturaPA XML) of an order's payment, downloaded from its receipt. */
export function invoicePath(orderCode: string, paymentCode: string): string {
  return href("/ricevuta/:ordercode/:paymentcode/fattura-elettronica.xml", { ordercode: orderCode, paymentcode: paymentCode });
}

/** A credit note (TD04) of an order's payment, by its year and number, downloaded from its receipt. */
export function creditNotePath(orderCode: string, paymentCode: string, year: number, number: number): string {
  return href("/ricevuta/:ordercode/:paymentcode/nota-di-credito/:creditnote", {
    ordercode: orderCode,
    paymentcode: paymentCode,
    creditnote: `${year}-${number}`,
  });
}

/**
 * Where Stripe's hosted card page (the card step without JavaScript) sends the customer back:
 * Stripe puts the Checkout Session's id in place of `{CHECKOUT_SESSION_ID}`.
 */
export const STRIPE_CARD_PAGE_RETURN_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/pagamenti/carta/ritorno"));

/** The sandbox gateway's 3-D Secure page of a card's setup. */
export function sandboxSetupAuthenticationPath(setupId: string): string {
  return page(href("/pagamenti/prova/3ds/:setup", { setup: setupId }));
}

/** The sandbox gateway's 3-D Secure page of a charge made with the customer present. */
export function sandboxChargeAuthenticationPath(chargeId: string): string {
  return page(href("/pagamenti/prova/3ds-addebito/:charge", { charge: chargeId }));
}

/**
 * A page's address as a card step returns to it (as Stripe.js returns): the setup and how it
 * went. A query string on a page already built here, so nothing of it is a route.
 */
export function cardStepReturnPath(page: string, setupId: string, redirectStatus: "succeeded" | "failed"): string {
  return `${page}?${new URLSearchParams({ setup_intent: setupId, redirect_status: redirectStatus })}`;
}

// Development only (404 in production).

/** The development clock: move the time on and run the jobs due. */
export const DEV_CLOCK_PATH = /* @__PURE__ */ page(/* @__PURE__ */ href("/dev/orologio"));

/** The development mailbox: the mails the portal sent. */
export const DEV_MAILBOX_PATH = /* @__PURE__ */ href("/dev/mailbox");

/** A mail's HTML in the development mailbox. */
export function devMailHtmlPath(id: string): string {
  return href("/dev/mailbox/:id/html", { id });
}
