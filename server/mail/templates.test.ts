import { describe, expect, it } from "vitest";
import { escapeMarkup as escapeHtml } from "#server/lib/escape.ts";
import {
  emailChangeConfirmationMail,
  emailChangeNoticeMail,
  emailChangeTakenMail,
  migratedAccountMail,
  type MailContent,
  passwordResetMail,
  subscriptionCancelledMail,
  subscriptionChargeFailedMail,
  subscriptionChargeReceiptMail,
  subscriptionEndedMail,
  subscriptionRenewalNoticeMail,
  subscriptionStartedMail,
  welcomeMail,
} from "./templates.ts";

const link = "https://portale.novalex.example/forgot-password/reset/abc123?x=1&y=2";

describe("mail templates", () => {
  it("password reset: subject, greeting, link in both bodies, validity and what to do if not asked", () => {
    const mail = passwordResetMail({ firstname: "Niccolò", link });
    expect(mail.subject).toBe("Reimposta la tua password");
    expect(mail.text).toContain("Gentile Niccolò,");
    expect(mail.text).toContain(`\n${link}\n`);
    expect(mail.text).toContain("valido per 1 ora");
    expect(mail.text).toContain("una sola volta");
    expect(mail.text).toContain("puoi ignorare questa e-mail");
    expect(mail.html).toContain(`href="${escapeHtml(link)}"`);
    expect(mail.html).toContain("x=1&amp;y=2");
    expect(mail.html).not.toContain("x=1&y=2");
    expect(mail.html).toContain("Gentile Niccolò,");
  });

  it("migrated account: asks to set a new password before the first sign-in, link valid 1 hour", () => {
    const mail = migratedAccountMail({ firstname: "Anna", link });
    expect(mail.subject).toBe("Imposta la password del tuo nuovo account");
    expect(mail.text).toContain("prima di accedere per la prima volta al nuovo portale");
    expect(mail.text).toContain("valido per 1 ora");
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(escapeHtml(link));
  });

  it("e-mail change: the link to the new address (24 hours), the notice to the old one, the taken address without link", () => {
    const confirmLink = "https://portale.novalex.example/profile/confirm-email/abc";
    const confirmation = emailChangeConfirmationMail({ firstname: "Anna", link: confirmLink });
    expect(confirmation.subject).toBe("Conferma il tuo nuovo indirizzo email");
    expect(confirmation.text).toContain(`\n${confirmLink}\n`);
    expect(confirmation.text).toContain("valido per 24 ore");

    const notice = emailChangeNoticeMail({
      firstname: "Anna",
      changePasswordUrl: "https://portale.novalex.example/profile/change-password/",
    });
    expect(notice.text).toContain("Se non sei stato tu");
    expect(notice.text).toContain("/profile/change-password/");
    expect(notice.text).not.toContain("confirm-email");

    const taken = emailChangeTakenMail({ forgotPasswordUrl: "https://portale.novalex.example/forgot-password/" });
    expect(taken.text).toContain("Gentile cliente,");
    expect(taken.text).toContain("già associato a un altro account");
    expect(taken.text).not.toContain("confirm-email");
  });

  it("welcome: subject and the sign-in link", () => {
    const loginUrl = "https://portale.novalex.example/login/";
    const mail = welcomeMail({ firstname: "Anna", loginUrl });
    expect(mail.subject).toBe("Benvenuto in Novalex Editore");
    expect(mail.text).toContain(loginUrl);
    expect(mail.html).toContain(`href="${loginUrl}"`);
  });

  it("greets an unnamed customer as 'Gentile cliente'", () => {
    for (const firstname of [null, "", "   "]) {
      const mail = passwordResetMail({ firstname, link });
      expect(mail.text.startsWith("Gentile cliente,\n")).toBe(true);
      expect(mail.html).toContain("Gentile cliente,");
    }
  });

  it("escapes HTML in names, in the html body only", () => {
    const firstname = `<script>alert("x")</script> & 'co'`;
    for (const mail of [passwordResetMail({ firstname, link }), welcomeMail({ firstname, loginUrl: link })]) {
      expect(mail.html).not.toContain("<script");
      expect(mail.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;");
      expect(mail.text).toContain(`Gentile ${firstname},`);
    }
  });

  it("builds a simple, inline-styled HTML document in the brand colours", () => {
    const { html } = passwordResetMail({ firstname: "Anna", link });
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain('<html lang="it">');
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain("<title>Reimposta la tua password</title>");
    expect(html).toContain("max-width:600px");
    expect(html).toContain("background-color:#0b2545");
    expect(html).toContain("background-color:#a4243b");
    expect(html).not.toMatch(/<table|<style|class=/);
    // Every element opened is closed (void elements aside), in order.
    const stack: string[] = [];
    for (const [, closing, name] of html.matchAll(/<(\/?)([a-z]+)\b[^>]*>/g)) {
      if (["meta", "br"].includes(name!)) continue;
      if (closing) expect(stack.pop()).toBe(name);
      else stack.push(name!);
    }
    expect(stack).toEqual([]);
  });

  it("refuses links that are not absolute http(s) URLs, without echoing them", () => {
    for (const bad of ["javascript:alert(1)", "/forgot-password/reset/secret", "mailto:a@b.it"]) {
      expect(() => passwordResetMail({ firstname: null, link: bad })).toThrow(/absolute http\(s\) URL$/);
    }
  });
});

describe("EDU subscription mails", () => {
  const planName = "EDU - Abbonamento 6 mesi";
  const manageUrl = "https://portale.novalex.example/account/subscription/?tab=edu&from=mail";
  const receiptUrl = "https://portale.novalex.example/orders/R-2026-0042/receipt/?kind=instalment&n=3";
  const updateCardUrl = "https://portale.novalex.example/account/subscription/card/?retry=1&from=mail";
  const eduUrl = "https://portale.novalex.example/edu/?utm_source=mail&utm_campaign=ended";

  /** The action link, as is in the text body, escaped in both HTML links (button and fallback). */
  function expectActionLink(mail: MailContent, url: string) {
    expect(mail.text).toContain(`\n${url}\n`);
    expect(mail.html.split(`href="${escapeHtml(url)}"`)).toHaveLength(3);
    expect(mail.html).toContain(`>${escapeHtml(url)}</a>`);
    expect(mail.html).not.toContain(url);
  }

  function all(firstname: string | null, plan = planName): MailContent[] {
    return [
      subscriptionStartedMail({ firstname, planName: plan, monthly: "4,50 €", nextCharge: "10 giugno 2026", manageUrl }),
      subscriptionRenewalNoticeMail({ firstname, planName: plan, monthly: "4,50 €", renewsOn: "10 novembre 2026", manageUrl }),
      subscriptionChargeReceiptMail({
        firstname,
        planName: plan,
        instalment: "3 di 6",
        amount: "4,50 €",
        paidUntil: "10 agosto 2026",
        receiptUrl,
      }),
      subscriptionChargeFailedMail({
        firstname,
        planName: plan,
        amount: "4,50 €",
        reason: "Fondi insufficienti",
        retryOn: "12 luglio 2026",
        updateCardUrl,
      }),
      subscriptionCancelledMail({ firstname, planName: plan, accessUntil: "10 agosto 2026", manageUrl }),
      subscriptionEndedMail({ firstname, planName: plan, reason: "cancelled", endedOn: "10 agosto 2026", eduUrl }),
    ];
  }

  it("started: subject, monthly amount, next charge date, renewal and cancellation terms, manage link", () => {
    const mail = subscriptionStartedMail({
      firstname: "Anna",
      planName,
      monthly: "4,50 €",
      nextCharge: "10 giugno 2026",
      manageUrl,
    });
    expect(mail.subject).toBe("Il tuo abbonamento EDU è attivo");
    expect(mail.text.startsWith("Gentile Anna,\n\nil tuo abbonamento EDU - Abbonamento 6 mesi è attivo: ")).toBe(true);
    expect(mail.text).toContain("L'abbonamento dura 6 mesi, con una rata mensile di 4,50 € addebitata ogni mese");
    expect(mail.text).toContain("Il prossimo addebito è il 10 giugno 2026.");
    expect(mail.text).toContain("Dopo 6 mesi l'abbonamento si rinnova per altri 6 mesi");
    expect(mail.text).toContain("Puoi disdirlo quando vuoi, senza penali");
    expect(mail.text).toContain("Gestisci il tuo abbonamento (disdetta, carta, ricevute):");
    expect(mail.html).toContain(">Il mio abbonamento</a>");
    expect(mail.html).toContain("<title>Il tuo abbonamento EDU è attivo</title>");
    expectActionLink(mail, manageUrl);
  });

  it("started: leaves out the next charge when there is none", () => {
    const mail = subscriptionStartedMail({ firstname: "Anna", planName, monthly: "4,50 €", nextCharge: null, manageUrl });
    expect(mail.text).not.toContain("prossimo addebito");
    expect(mail.text).toContain("nello stesso giorno del mese.\n\n");
    expect(mail.html).not.toContain("prossimo addebito");
  });

  it("renewal notice: subject, renewal date, same monthly amount, how to cancel before it", () => {
    const mail = subscriptionRenewalNoticeMail({
      firstname: "Anna",
      planName,
      monthly: "4,50 €",
      renewsOn: "10 novembre 2026",
      manageUrl,
    });
    expect(mail.subject).toBe("Il tuo abbonamento EDU si rinnova tra una settimana");
    expect(mail.text).toContain(
      "il 10 novembre 2026 il tuo abbonamento EDU - Abbonamento 6 mesi si rinnova per altri 6 mesi, alle stesse condizioni: una rata mensile di 4,50 €,",
    );
    expect(mail.text).toContain("disdici prima di quella data: non ti sarà addebitato nulla");
    expect(mail.text).toContain("Per disdire o cambiare carta:");
    expectActionLink(mail, manageUrl);
  });

  it("charge receipt: subject with plan and instalment 'n di 6', amount, paid-until date, receipt link", () => {
    const mail = subscriptionChargeReceiptMail({
      firstname: "Anna",
      planName,
      instalment: "3 di 6",
      amount: "4,50 €",
      paidUntil: "10 agosto 2026",
      receiptUrl,
    });
    expect(mail.subject).toBe("Pagamento ricevuto: EDU - Abbonamento 6 mesi, rata 3 di 6");
    expect(mail.text).toContain(
      "abbiamo ricevuto il pagamento di 4,50 € per la rata 3 di 6 del tuo abbonamento EDU - Abbonamento 6 mesi.",
    );
    expect(mail.text).toContain("Il tuo accesso a EDU è attivo fino al 10 agosto 2026.");
    expect(mail.html).toContain(">Vedi la ricevuta</a>");
    expectActionLink(mail, receiptUrl);
  });

  it("charge failed, with a retry date and the bank's reason: access suspended until the retry or a new card", () => {
    const mail = subscriptionChargeFailedMail({
      firstname: "Anna",
      planName,
      amount: "4,50 €",
      reason: "Fondi insufficienti",
      retryOn: "12 luglio 2026",
      updateCardUrl,
    });
    expect(mail.subject).toBe("Pagamento non riuscito: aggiorna la tua carta");
    expect(mail.text).toContain(
      "non siamo riusciti ad addebitare 4,50 € per il tuo abbonamento EDU - Abbonamento 6 mesi. La banca ha risposto: «Fondi insufficienti»",
    );
    expect(mail.text).toContain("Riproveremo il 12 luglio 2026. Nel frattempo l'accesso a EDU è sospeso");
    expect(mail.text).not.toContain("ultimo tentativo");
    expect(mail.html).toContain("«Fondi insufficienti»");
    expect(mail.html).toContain(">Aggiorna carta</a>");
    expectActionLink(mail, updateCardUrl);
  });

  it("charge failed, last try and no reason from the bank: says the subscription has ended", () => {
    const mail = subscriptionChargeFailedMail({
      firstname: "Anna",
      planName,
      amount: "4,50 €",
      reason: null,
      retryOn: null,
      updateCardUrl,
    });
    expect(mail.text).toContain("non siamo riusciti ad addebitare 4,50 € per il tuo abbonamento EDU - Abbonamento 6 mesi.\n\n");
    expect(mail.text).not.toContain("La banca ha risposto");
    expect(mail.text).not.toContain("Riproveremo");
    expect(mail.text).toContain("Era l'ultimo tentativo: l'abbonamento è terminato.");
    expectActionLink(mail, updateCardUrl);
  });

  it("charge failed: the bank's reason without a retry date, and a retry date without a reason", () => {
    const lastWithReason = subscriptionChargeFailedMail({
      firstname: "Anna",
      planName,
      amount: "4,50 €",
      reason: "Carta scaduta",
      retryOn: null,
      updateCardUrl,
    });
    expect(lastWithReason.text).toContain("La banca ha risposto: «Carta scaduta»");
    expect(lastWithReason.text).toContain("Era l'ultimo tentativo");

    const retryWithoutReason = subscriptionChargeFailedMail({
      firstname: "Anna",
      planName,
      amount: "4,50 €",
      reason: null,
      retryOn: "13 luglio 2026",
      updateCardUrl,
    });
    expect(retryWithoutReason.text).not.toContain("La banca ha risposto");
    expect(retryWithoutReason.text).toContain("Riproveremo il 13 luglio 2026.");
  });

  it("cancelled: subject, no further charges, access until the paid month's end, reactivation link", () => {
    const mail = subscriptionCancelledMail({ firstname: "Anna", planName, accessUntil: "10 agosto 2026", manageUrl });
    expect(mail.subject).toBe("Disdetta del tuo abbonamento EDU confermata");
    expect(mail.text).toContain(
      "abbiamo ricevuto la disdetta del tuo abbonamento EDU - Abbonamento 6 mesi: non ti addebiteremo altre rate.",
    );
    expect(mail.text).toContain("Il tuo accesso a EDU resta attivo fino al 10 agosto 2026.");
    expect(mail.text).toContain("puoi riattivare l'abbonamento quando vuoi");
    expect(mail.html).toContain(">Riattiva l&#39;abbonamento</a>");
    expectActionLink(mail, manageUrl);
  });

  it("ended: one text after a cancellation, another after the last failed charge, both with the end date", () => {
    const cancelled = subscriptionEndedMail({
      firstname: "Anna",
      planName,
      reason: "cancelled",
      endedOn: "10 agosto 2026",
      eduUrl,
    });
    const unpaid = subscriptionEndedMail({
      firstname: "Anna",
      planName,
      reason: "payment_failed",
      endedOn: "10 agosto 2026",
      eduUrl,
    });
    for (const mail of [cancelled, unpaid]) {
      expect(mail.subject).toBe("Il tuo abbonamento EDU è terminato");
      expect(mail.text).toContain("il tuo accesso a EDU si è concluso il 10 agosto 2026.");
      expect(mail.text).toContain("Non ti addebiteremo altro. Le ricevute dei pagamenti restano nella pagina I miei acquisti.");
      expect(mail.html).toContain(">Scopri EDU</a>");
      expectActionLink(mail, eduUrl);
    }
    expect(cancelled.text).toContain("come da tua disdetta, il tuo abbonamento EDU - Abbonamento 6 mesi è terminato");
    expect(cancelled.text).not.toContain("non siamo riusciti");
    expect(unpaid.text).toContain(
      "non siamo riusciti ad addebitare la rata del tuo abbonamento EDU - Abbonamento 6 mesi neppure dopo alcuni tentativi",
    );
    expect(unpaid.text).not.toContain("disdetta");
  });

  it("greets an unnamed customer as 'Gentile cliente', and never prints a missing value", () => {
    const withoutOptionals = [
      subscriptionStartedMail({ firstname: null, planName, monthly: "4,50 €", nextCharge: null, manageUrl }),
      subscriptionChargeFailedMail({ firstname: null, planName, amount: "4,50 €", reason: null, retryOn: null, updateCardUrl }),
    ];
    for (const mail of [...all(null), ...withoutOptionals]) {
      expect(mail.text.startsWith("Gentile cliente,\n\n")).toBe(true);
      expect(mail.html).toContain(">Gentile cliente,</p>");
      expect(mail.text).toMatch(/\nNovalex Editore\n$/);
      for (const body of [mail.subject, mail.text, mail.html]) {
        expect(body).not.toMatch(/\b(undefined|null|NaN)\b|\[object/);
      }
    }
  });

  it("escapes every interpolated value in the html body only", () => {
    const plan = `<b>EDU</b> & "Plus"`;
    const escapedPlan = "&lt;b&gt;EDU&lt;/b&gt; &amp; &quot;Plus&quot;";
    const values = { amount: "<i>4,50 €</i>", date: "<u>10 agosto</u>", reason: "<script>x</script>" };
    const mails = [
      ...all(`<em>Anna</em>`, plan),
      subscriptionChargeFailedMail({
        firstname: null,
        planName: plan,
        amount: values.amount,
        reason: values.reason,
        retryOn: values.date,
        updateCardUrl,
      }),
      subscriptionChargeReceiptMail({
        firstname: null,
        planName: plan,
        instalment: "<s>1 di 6</s>",
        amount: values.amount,
        paidUntil: values.date,
        receiptUrl,
      }),
      subscriptionEndedMail({ firstname: null, planName: plan, reason: "payment_failed", endedOn: values.date, eduUrl }),
    ];
    for (const mail of mails) {
      expect(mail.html).toContain(escapedPlan);
      expect(mail.text).toContain(plan);
      expect(mail.html).not.toMatch(/<(b|i|u|s|em|script)>/);
    }
    expect(mails[0]!.html).toContain("Gentile &lt;em&gt;Anna&lt;/em&gt;,");
    expect(mails[6]!.html).toContain("«&lt;script&gt;x&lt;/script&gt;»");
    expect(mails[6]!.html).toContain("Riproveremo il &lt;u&gt;10 agosto&lt;/u&gt;.");
    expect(mails[7]!.html).toContain("<title>Pagamento ricevuto: " + escapedPlan + ", rata &lt;s&gt;1 di 6&lt;/s&gt;</title>");
    expect(mails[7]!.subject).toBe(`Pagamento ricevuto: ${plan}, rata <s>1 di 6</s>`);
  });

  it("refuses action links that are not absolute http(s) URLs", () => {
    const bad = "javascript:alert(1)";
    const base = { firstname: null, planName };
    const builders = [
      () => subscriptionStartedMail({ ...base, monthly: "4,50 €", nextCharge: null, manageUrl: bad }),
      () => subscriptionRenewalNoticeMail({ ...base, monthly: "4,50 €", renewsOn: "1 maggio 2026", manageUrl: bad }),
      () =>
        subscriptionChargeReceiptMail({
          ...base,
          instalment: "1 di 6",
          amount: "4,50 €",
          paidUntil: "1 maggio",
          receiptUrl: bad,
        }),
      () => subscriptionChargeFailedMail({ ...base, amount: "4,50 €", reason: null, retryOn: null, updateCardUrl: bad }),
      () => subscriptionCancelledMail({ ...base, accessUntil: "1 maggio 2026", manageUrl: bad }),
      () => subscriptionEndedMail({ ...base, reason: "cancelled", endedOn: "1 maggio 2026", eduUrl: bad }),
    ];
    for (const build of builders) expect(build).toThrow(/absolute http\(s\) URL$/);
  });
});
