import { index, layout, route, type RouteConfig } from "@react-router/dev/routes";
import { ACTIVATION_PROMPT_PATHS } from "#shared/links.ts";
import { SHORT_LANDING_VARIANTS } from "#shared/landing-variants.ts";

export default [
  index("routes/home.tsx"),

  // Public site
  route("landingpage/:variant", "routes/landing.tsx"),
  ...SHORT_LANDING_VARIANTS.map((variant) => route(variant, "routes/landing.tsx", { id: `routes/landing/${variant}` })),
  route("edu", "routes/edu.tsx"),
  route("help-center", "routes/help-center.tsx"),
  ...ACTIVATION_PROMPT_PATHS.map((path) =>
    route(path.slice(1), "routes/activation-prompt.tsx", { id: `routes/activation-prompt${path}` }),
  ),
  route("media/copertine/:file", "routes/media.cover.ts"),

  // Sign-in, registration, sign-out
  route("login", "routes/login.tsx"),
  route("oauthcb", "routes/oauthcb.tsx"),
  route("accedi/:uid", "routes/accedi.tsx"),
  route("accedi/:uid/social", "routes/accedi.social.tsx"),
  route("accedi/social/callback", "routes/accedi.social-callback.tsx"),
  route("logout", "routes/logout.tsx"),
  route("register", "routes/register.tsx"),
  route("forgot-password", "routes/forgot-password.tsx"),
  route("forgot-password/password-updated", "routes/password-updated.tsx"),
  route("forgot-password/reset/:token", "routes/reset-password.tsx"),
  route("forgot-password/:token", "routes/reset-password.tsx", { id: "routes/reset-password/earlier-form" }),
  route("mandatory-password/reset/:token", "routes/mandatory-password-reset.tsx"),

  // Signed-in customers: the layout's middleware signs visitors in first.
  layout("routes/customer-layout.tsx", [
    route("dashboard", "routes/dashboard.tsx"),
    route("prodotti/attiva", "routes/activate-product.tsx"),
    route("leggi/:productId", "routes/reader.tsx"),
    route("leggi/:productId/apri", "routes/reader.open.tsx"),
    route("profilo/primoaccesso", "routes/first-access.tsx"),
    route("profile", "routes/profile.tsx"),
    route("profile/preferences", "routes/profile.preferences.tsx"),
    route("profile/change-password", "routes/profile.change-password.tsx"),
    route("profile/delete-user", "routes/profile.delete-user.tsx"),
    route("profile/sessions", "routes/profile.sessions.tsx"),
    route("profile/data", "routes/profile.data.ts"),
    route("my-products", "routes/my-products.tsx"),
    route("my-products/abbonamento", "routes/subscription.tsx"),
    route("my-products/abbonamento/carta", "routes/subscription.card.tsx"),
    route("ricevuta/:ordercode", "routes/receipt.tsx"),
    route("ricevuta/:ordercode/:paymentcode", "routes/receipt.tsx", { id: "routes/receipt/payment" }),
    route("ricevuta/:ordercode/:paymentcode/fattura-elettronica.xml", "routes/invoice-download.ts"),
    route("ricevuta/:ordercode/:paymentcode/nota-di-credito/:creditnote", "routes/credit-note-download.ts"),
    route("create-checkout/:productcode", "routes/create-checkout.tsx"),
    route("checkout/:order", "routes/checkout/route.tsx"),
    // The sandbox gateway's 3-D Secure page (the embedded default, no keys).
    route("pagamenti/prova/3ds/:setup", "routes/sandbox-3ds.tsx"),
    route("pagamenti/prova/3ds-addebito/:charge", "routes/sandbox-charge-3ds.tsx"),
    // Stripe's hosted card page (the card step without JavaScript) returns here.
    route("pagamenti/carta/ritorno", "routes/stripe-card-return.tsx"),
  ]),
  // Account deletion's confirmation, for the visitor the deletion signed out.
  route("profile/delete-user/confermata", "routes/account-deleted.tsx"),
  // Opened from a mail, signed in or not.
  route("profile/confirm-email/:token", "routes/profile.confirm-email.tsx"),

  // Development only (404 in production)
  route("dev/mailbox", "routes/dev.mailbox.tsx"),
  route("dev/mailbox/:id/html", "routes/dev.mailbox.html.ts"),
  route("dev/orologio", "routes/dev.clock.tsx"),

  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
