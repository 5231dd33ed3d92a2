import { describe, expect, it } from "vitest";
import { escapeMarkup as escapeHtml } from "../lib/escape.ts";
import {
  emailChangeConfirmationMail,
  emailChangeNoticeMail,
  emailChangeTakenMail,
  migratedAccountMail,
  passwordResetMail,
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
