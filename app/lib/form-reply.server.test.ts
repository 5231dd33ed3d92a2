import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseForm, refuse, secret } from "./form-reply.server";
import { MESSAGES } from "#shared/messages.ts";
import { newPasswordSchema } from "./password-form.server";

/** A form as a browser posts it: a list is a field that repeats (checkboxes of one name). */
function form(fields: Record<string, string | string[]>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) data.append(name, v);
  return data;
}

const contact = z.object({
  name: z.string().trim().min(1, "Nome obbligatorio").max(5, "Troppo lungo"),
  email: z.string().min(1, "Email obbligatoria").email("Email non valida"),
  note: z.string().optional(),
});

describe("parseForm", () => {
  it("accepts a valid form with the parsed data and what was typed", async () => {
    const parsed = await parseForm(form({ name: " Ada ", email: "ada@example.it", unknown: "ignored" }), contact);
    expect(parsed).toEqual({
      ok: true,
      data: { name: "Ada", email: "ada@example.it" },
      values: { name: " Ada ", email: "ada@example.it" },
    });
  });

  it("reports the first message of each refused field, in the order of its checks", async () => {
    const parsed = await parseForm(form({ name: "Adalgisa", email: "" }), contact);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    // "" fails both min(1) and email(): only the first is shown.
    expect(parsed.reply).toEqual({
      fieldErrors: { name: "Troppo lungo", email: "Email obbligatoria" },
      values: { name: "Adalgisa", email: "" },
    });
  });

  it("gives the checks written without a message of their own an Italian one", async () => {
    const bare = z.object({ name: z.string().max(3), email: z.email(), age: z.coerce.number().int() });
    const parsed = await parseForm(form({ name: "Adalgisa", age: "x" }), bare);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.reply.fieldErrors).toEqual({
      name: MESSAGES.fieldTooLong,
      email: MESSAGES.fieldRequired,
      age: MESSAGES.fieldInvalid,
    });
    // A message of the schema's own still comes first.
    const own = await parseForm(form({ name: "Adalgisa", email: "" }), contact);
    expect(own.ok || own.reply.fieldErrors).toEqual({ name: "Troppo lungo", email: "Email obbligatoria" });
  });

  it("reads a Request's form too, once", async () => {
    const request = new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Ada", email: "ada@example.it", note: "ciao" }),
    });
    const parsed = await parseForm(request, contact);
    expect(parsed.ok && parsed.data).toEqual({ name: "Ada", email: "ada@example.it", note: "ciao" });
    expect(request.bodyUsed).toBe(true);
  });

  describe("list fields (an array schema): every value of the name", () => {
    const interests = z.object({
      interests: z.array(z.string().max(3, "Scelta non valida")).min(1, "Seleziona almeno un interesse").optional(),
    });

    it("takes every value, and none is an empty list", async () => {
      const ticked = await parseForm(form({ interests: ["a", "b"] }), interests);
      expect(ticked).toMatchObject({ ok: true, data: { interests: ["a", "b"] }, values: { interests: ["a", "b"] } });

      const none = await parseForm(form({}), interests);
      expect(none).toMatchObject({ ok: false, reply: { fieldErrors: { interests: "Seleziona almeno un interesse" } } });
    });

    it("reports one message for the list, whichever of its values is refused", async () => {
      const parsed = await parseForm(form({ interests: ["a", "troppo", "lungo"] }), interests);
      expect(parsed).toMatchObject({ ok: false, reply: { fieldErrors: { interests: "Scelta non valida" } } });
    });

    it("reads a list only when the form sends its marker (no box ticked is an answer too)", async () => {
      const notShown = await parseForm(form({ interests: "a" }), interests, { shownBy: { interests: "interestsShown" } });
      expect(notShown).toEqual({ ok: true, data: {}, values: {} });

      const shownEmpty = await parseForm(form({ interestsShown: "1" }), interests, {
        shownBy: { interests: "interestsShown" },
      });
      expect(shownEmpty).toMatchObject({ ok: false, reply: { fieldErrors: { interests: "Seleziona almeno un interesse" } } });
    });
  });

  describe("passwords", () => {
    const change = newPasswordSchema({ currentPassword: secret(z.string().min(1, MESSAGES.currentPasswordRequired)) });

    it("never sends a secret field back, accepted or refused", async () => {
      const login = z.object({ email: z.string().email("Email non valida"), password: secret(z.string().min(8, "Corta")) });
      const refused = await parseForm(form({ email: "ada", password: "Segreta" }), login);
      expect(refused).toMatchObject({ ok: false, values: { email: "ada" } });
      expect(JSON.stringify(refused)).not.toContain("Segreta");

      const accepted = await parseForm(
        form({ currentPassword: "Vecchia1!", password: "Nuovissima2#", confirmation: "Nuovissima2#" }),
        change,
      );
      expect(accepted).toEqual({
        ok: true,
        data: { currentPassword: "Vecchia1!", password: "Nuovissima2#", confirmation: "Nuovissima2#" },
        values: {},
      });
    });

    it.each([
      [{ password: "Nuovissima2#", confirmation: "Nuovissima2?" }, { confirmation: MESSAGES.passwordMismatch }],
      // The mismatch is reported beside the other fields' problems, not after them.
      [
        { currentPassword: "", password: "debole", confirmation: "debolx" },
        {
          currentPassword: MESSAGES.currentPasswordRequired,
          password: MESSAGES.passwordRule,
          confirmation: MESSAGES.passwordMismatch,
        },
      ],
      // Equal but against the rule: only the rule.
      [{ password: "debole", confirmation: "debole" }, { password: MESSAGES.passwordRule }],
      // An empty confirmation is missing, not different.
      [{ password: "Nuovissima2#", confirmation: "" }, { confirmation: MESSAGES.passwordConfirmationRequired }],
    ])("checks that the confirmation equals the new password: %j", async (fields, expected) => {
      const parsed = await parseForm(form({ currentPassword: "Vecchia1!", ...fields }), change);
      expect(parsed).toEqual({ ok: false, reply: { fieldErrors: expected, values: {} }, values: {} });
    });

    it("reports a different confirmation even when another field is missing altogether", async () => {
      const parsed = await parseForm(form({ password: "Nuovissima2#", confirmation: "Nuovissima2?" }), change);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(Object.keys(parsed.reply.fieldErrors ?? {}).sort()).toEqual(["confirmation", "currentPassword"]);
      expect(parsed.reply.fieldErrors?.confirmation).toBe(MESSAGES.passwordMismatch);
    });
  });

  it("sends back at most 1000 characters of a value", async () => {
    const parsed = await parseForm(form({ name: "x".repeat(5000), email: "ada@example.it" }), contact);
    expect(parsed.ok).toBe(false);
    expect((parsed.values.name as string).length).toBe(1000);
  });
});

describe("refuse", () => {
  it("answers the reply with 400, or the status given", () => {
    expect(refuse({ alert: { title: "Errore" } })).toMatchObject({ data: { alert: { title: "Errore" } }, init: { status: 400 } });
    expect(refuse({ fieldErrors: { email: "Troppi tentativi" } }, 429).init).toEqual({ status: 429 });
  });
});
