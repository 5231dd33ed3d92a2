// zod's issues in Italian, for inputs the pages' and the API's schemas do not word themselves:
// "Il campo firstname è obbligatorio". Used by the API's router and by the use-cases both doors
// share (server/commerce/start-payment.ts), so it sits below both.
import type { z } from "zod";

/** The messages of an issue about the whole input, not a field of it. */
export const WHOLE_INPUT_MESSAGES = {
  notObject: "Il corpo della richiesta deve essere un oggetto JSON",
  invalid: "La richiesta non è valida",
} as const;

/** `ids[0]`, `billing.city`: the path of an input as a client writes it. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("");
}

const TYPE_NAMES: Record<string, string> = {
  string: "un testo",
  number: "un numero",
  int: "un numero intero",
  boolean: "true o false",
  array: "un elenco",
  object: "un oggetto",
};

const plural = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;

/** What is wrong with the field, after "Il campo X": the Italian of zod's issue, from its code and bounds. */
function problemOf(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "è obbligatorio";
      return `deve essere ${TYPE_NAMES[issue.expected] ?? "di un altro tipo"}`;
    case "too_big":
      if (issue.origin === "string") return `è troppo lungo: al massimo ${plural(issue.maximum, "carattere", "caratteri")}`;
      if (issue.origin === "array" || issue.origin === "set") return `ha troppi elementi: al massimo ${issue.maximum}`;
      return `è troppo grande: al massimo ${issue.maximum}`;
    case "too_small":
      if (issue.origin === "string") {
        return Number(issue.minimum) === 1
          ? "è obbligatorio"
          : `è troppo corto: almeno ${plural(issue.minimum, "carattere", "caratteri")}`;
      }
      if (issue.origin === "array" || issue.origin === "set")
        return `deve avere almeno ${plural(issue.minimum, "elemento", "elementi")}`;
      return `è troppo piccolo: almeno ${issue.minimum}`;
    case "invalid_value":
      return "non ha uno dei valori ammessi";
    case "unrecognized_keys":
      return "non è previsto";
    default:
      return "non è valido";
  }
}

/** The field an issue is about: an unknown key is itself the field at fault, not the object holding it. */
export function pathOf(issue: { code: string; path?: PropertyKey[]; keys?: string[] }): PropertyKey[] {
  const path = issue.path ?? [];
  return issue.code === "unrecognized_keys" && issue.keys?.[0] !== undefined ? [...path, issue.keys[0]] : path;
}

/**
 * The Italian message of a zod issue that its schema did not word itself ("Il campo firstname è
 * obbligatorio"): passed as the parse's error map, it stands in for zod's English, while a
 * schema's own message (the pages' messages) wins over it.
 */
export function italianIssue(issue: z.core.$ZodRawIssue): string {
  const path = pathOf(issue);
  if (path.length === 0)
    return issue.code === "invalid_type" && issue.expected === "object"
      ? WHOLE_INPUT_MESSAGES.notObject
      : WHOLE_INPUT_MESSAGES.invalid;
  return `Il campo ${fieldName(path)} ${problemOf(issue)}`;
}
