import { describe, expect, it } from "vitest";
import { NETWORK_FAILURE } from "./communication-failure";
import { readReply, refusalOf, type FormReply } from "./form-reply";

const refused: FormReply<"email" | "interests" | "password", "taken"> = {
  fieldErrors: { email: "Email non valida" },
  alert: { title: "Errore", text: "Alcuni dati non sono validi" },
  values: { email: "ada", interests: ["a", "b"] },
  reason: "taken",
};

describe("readReply", () => {
  it("gives each field its error and what was typed", () => {
    const reply = readReply(refused);
    expect(reply.alert).toEqual(refused.alert);
    expect(reply.reason).toBe("taken");
    expect(reply.error("email")).toBe("Email non valida");
    expect(reply.error("password")).toBeUndefined();
    expect(reply.value("email")).toBe("ada");
    expect(reply.value("interests")).toBeUndefined();
    expect(reply.list("interests")).toEqual(["a", "b"]);
    expect(reply.field("email", "fallback")).toEqual({ name: "email", error: "Email non valida", defaultValue: "ada" });
    expect(reply.field("password", "")).toEqual({ name: "password", error: undefined, defaultValue: "" });
  });

  it("is empty before a submission and after one lost on the network (the root shows that alert)", () => {
    for (const actionData of [undefined, NETWORK_FAILURE]) {
      const reply = readReply<"email">(actionData);
      expect([reply.alert, reply.values, reply.error("email"), reply.value("email")]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      expect(reply.field("email", "stored@example.it").defaultValue).toBe("stored@example.it");
    }
  });
});

describe("refusalOf", () => {
  it("finds a refusal's messages and alert in any action data, and nothing else", () => {
    expect(refusalOf(refused)).toEqual({ fieldErrors: { email: "Email non valida" }, alert: refused.alert });
    expect(refusalOf({ alert: { title: "Errore" } })).toEqual({ fieldErrors: {}, alert: { title: "Errore" } });
    for (const other of [undefined, NETWORK_FAILURE, { cardStep: { clientSecret: "x" } }, { fieldErrors: {} }, "text"]) {
      expect(refusalOf(other)).toBeUndefined();
    }
  });
});
