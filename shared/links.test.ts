import { describe, expect, it } from "vitest";
import * as links from "./links.ts";

// Each address pinned to the string the portal has always written: building them on href() must
// not change one character, trailing slashes and the encoding of parameters included.

/** Every character whose encoding could differ: encodeURIComponent's, as the links always used. */
const AWKWARD = "a b/c?d#e%f$g&h+i,j;k=l:m@n~o!p'q(r)s*tè";
const AWKWARD_ENCODED = "a%20b%2Fc%3Fd%23e%25f%24g%26h%2Bi%2Cj%3Bk%3Dl%3Am%40n~o!p'q(r)s*t%C3%A8";

describe("the portal's pages", () => {
  it.each([
    ["SESSIONS_PATH", "/profile/sessions/"],
    ["DATA_EXPORT_PATH", "/profile/data/"],
    ["PREFERENCES_PATH", "/profile/preferences/"],
    ["CHANGE_PASSWORD_PATH", "/profile/change-password/"],
    ["DELETE_ACCOUNT_PATH", "/profile/delete-user/"],
    ["FIRST_ACCESS_PATH", "/profilo/primoaccesso/"],
    ["FORGOT_PASSWORD_PATH", "/forgot-password/"],
    ["HELP_CENTER_PATH", "/help-center/"],
    ["MY_PRODUCTS_PATH", "/my-products/"],
    ["DASHBOARD_PATH", "/dashboard/"],
    ["REGISTER_PATH", "/register/"],
    ["PROFILE_PATH", "/profile/"],
    ["LOGIN_PATH", "/login/"],
    ["LOGOUT_PATH", "/logout/"],
    ["EDU_PATH", "/edu/"],
    ["LANDING_PATH", "/landingpage/landing/"],
    ["EDU_ACTIVATION_PROMPT_PATH", "/attivaebookedu/"],
    ["ACTIVATION_PROMPT_PATH", "/attivaprodotto/"],
    ["STRIPE_CARD_PAGE_RETURN_PATH", "/pagamenti/carta/ritorno/"],
    ["SUBSCRIPTION_PATH", "/my-products/abbonamento/"],
    ["SUBSCRIPTION_CARD_PATH", "/my-products/abbonamento/carta/"],
    ["ACCOUNT_DELETED_PATH", "/profile/delete-user/confermata/"],
    ["DEV_CLOCK_PATH", "/dev/orologio/"],
    // Without a slash where the portal always linked them so.
    ["HOME_PATH", "/"],
    ["PASSWORD_UPDATED_PATH", "/forgot-password/password-updated"],
    ["OAUTH_CALLBACK_PATH", "/oauthcb"],
    ["SOCIAL_LOGIN_CALLBACK_PATH", "/accedi/social/callback"],
    ["ACTIVATE_PRODUCT_PATH", "/prodotti/attiva"],
    ["DEV_MAILBOX_PATH", "/dev/mailbox"],
  ] as const)("%s is %s", (name, path) => {
    expect(links[name]).toBe(path);
  });

  it.each(["universita", "professionali", "enti-biblioteche", "biblioteca-digitale"] as const)(
    "the landing page %s at its short address",
    (variant) => {
      expect(links.shortLandingPath(variant)).toBe(`/${variant}`);
    },
  );

  it("the activation prompt's five addresses are written without a slash", () => {
    expect(links.ACTIVATION_PROMPT_PATHS).toEqual([
      "/attivaprodotto",
      "/attivaomaggio",
      "/attivaebook",
      "/attivaebookedu",
      "/attivadaecomm",
    ]);
  });
});

describe("addresses with parameters", () => {
  it("a product's cover, reader and checkout", () => {
    expect(links.coverPath("pf04")).toBe("/media/copertine/pf04.svg");
    expect(links.readerPath("0b7f5c2e-1111-4222-8333-444455556666")).toBe("/leggi/0b7f5c2e-1111-4222-8333-444455556666/");
    expect(links.readerOpenPath("0b7f5c2e-1111-4222-8333-444455556666")).toBe("/leggi/0b7f5c2e-1111-4222-8333-444455556666/apri");
    expect(links.checkoutPath("abbonamentoedu")).toBe("/create-checkout/abbonamentoedu/");
    expect(links.checkoutOrderPath("9f1c")).toBe("/checkout/9f1c/");
  });

  it("an order's receipt, a payment's, its invoice and credit notes", () => {
    expect(links.receiptPath("NX1")).toBe("/ricevuta/NX1/");
    expect(links.receiptPath("NX1", "P2")).toBe("/ricevuta/NX1/P2/");
    expect(links.receiptPath("NX1", "")).toBe("/ricevuta/NX1/");
    expect(links.invoicePath("NX1", "P2")).toBe("/ricevuta/NX1/P2/fattura-elettronica.xml");
    expect(links.creditNotePath("NX1", "P2", 2026, 7)).toBe("/ricevuta/NX1/P2/nota-di-credito/2026-7");
  });

  it("the sandbox gateway's 3-D Secure pages", () => {
    expect(links.sandboxSetupAuthenticationPath("seti_1")).toBe("/pagamenti/prova/3ds/seti_1/");
    expect(links.sandboxChargeAuthenticationPath("ch_1")).toBe("/pagamenti/prova/3ds-addebito/ch_1/");
  });

  // Tokens are base64url and the identity provider's interaction ids nanoid's alphabet, which
  // need no escaping: escaping them, as these addresses now do, writes them as before.
  it("the links mailed with a token, and the sign-in's screens", () => {
    const token = "AZaz09_-";
    expect(links.passwordResetPath(token)).toBe(`/forgot-password/reset/${token}`);
    expect(links.migratedAccountResetPath(token)).toBe(`/mandatory-password/reset/${token}`);
    expect(links.emailConfirmationPath(token)).toBe(`/profile/confirm-email/${token}`);
    expect(links.loginInteractionPath(token)).toBe(`/accedi/${token}`);
    expect(links.socialLoginPath(token)).toBe(`/accedi/${token}/social`);
    expect(links.devMailHtmlPath("0b7f5c2e-1111-4222-8333-444455556666")).toBe(
      "/dev/mailbox/0b7f5c2e-1111-4222-8333-444455556666/html",
    );
  });

  it("encodes every parameter as encodeURIComponent does", () => {
    expect(links.coverPath(AWKWARD)).toBe(`/media/copertine/${AWKWARD_ENCODED}.svg`);
    expect(links.readerPath(AWKWARD)).toBe(`/leggi/${AWKWARD_ENCODED}/`);
    expect(links.readerOpenPath(AWKWARD)).toBe(`/leggi/${AWKWARD_ENCODED}/apri`);
    expect(links.checkoutPath(AWKWARD)).toBe(`/create-checkout/${AWKWARD_ENCODED}/`);
    expect(links.checkoutOrderPath(AWKWARD)).toBe(`/checkout/${AWKWARD_ENCODED}/`);
    expect(links.receiptPath(AWKWARD)).toBe(`/ricevuta/${AWKWARD_ENCODED}/`);
    expect(links.receiptPath(AWKWARD, AWKWARD)).toBe(`/ricevuta/${AWKWARD_ENCODED}/${AWKWARD_ENCODED}/`);
    expect(links.invoicePath(AWKWARD, AWKWARD)).toBe(`/ricevuta/${AWKWARD_ENCODED}/${AWKWARD_ENCODED}/fattura-elettronica.xml`);
    expect(links.creditNotePath(AWKWARD, AWKWARD, 2026, 7)).toBe(
      `/ricevuta/${AWKWARD_ENCODED}/${AWKWARD_ENCODED}/nota-di-credito/2026-7`,
    );
    expect(links.sandboxSetupAuthenticationPath(AWKWARD)).toBe(`/pagamenti/prova/3ds/${AWKWARD_ENCODED}/`);
    expect(links.sandboxChargeAuthenticationPath(AWKWARD)).toBe(`/pagamenti/prova/3ds-addebito/${AWKWARD_ENCODED}/`);
    expect(links.socialLoginPath(AWKWARD)).toBe(`/accedi/${AWKWARD_ENCODED}/social`);
  });

  it("an address already encoded is encoded again, as a parameter holding '%' must be", () => {
    expect(links.readerPath("a%2Fb")).toBe("/leggi/a%252Fb/");
  });
});

describe("addresses outside the routes", () => {
  it("a course on the course platform", () => {
    expect(links.courseUrl("https://corsi.example.it", 42)).toBe("https://corsi.example.it/course/view.php?id=42");
  });

  it("a card step's return to its page", () => {
    expect(links.cardStepReturnPath("/checkout/9f1c/", "seti_1", "succeeded")).toBe(
      "/checkout/9f1c/?setup_intent=seti_1&redirect_status=succeeded",
    );
  });
});
