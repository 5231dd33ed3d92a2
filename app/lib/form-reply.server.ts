// The server side of the one way to write a form (form-reply.ts): read the form once, validate
// it with zod, and refuse with a FormReply. zod stays on the server: it is imported only here and
// by actions, which the build strips from the browser bundles.
import { data } from "react-router";
import { z } from "zod";
import type { FormReply } from "./form-reply";
import { MESSAGES } from "#shared/messages.ts";
import { isStorableText } from "#shared/stored-text.ts";

/** Values longer than this are not sent back whole: no field of the portal takes as much. */
const ECHO_LIMIT = 1000;

const secrets = new WeakSet<z.ZodType>();

/**
 * Marks a field whose value is never sent back to the page (a password). Mark the field's
 * outermost schema, `secret(z.string().min(1).optional())`: a wrapper is a schema of its own.
 */
export function secret<T extends z.ZodType>(schema: T): T {
  secrets.add(schema);
  return schema;
}

/** Whether a field takes every value of its name (checkboxes of one name): an array schema. */
function isList(schema: z.ZodType): boolean {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  return inner instanceof z.ZodArray;
}

/**
 * The message of a check written without one of its own (a length limit, a field missing from a
 * hand-made post): Italian like every other, never zod's English default.
 */
function fallbackMessage(issue: z.core.$ZodRawIssue): string {
  if (issue.code === "too_big") return MESSAGES.fieldTooLong;
  if (issue.code === "invalid_type" && issue.input === undefined) return MESSAGES.fieldRequired;
  return MESSAGES.fieldInvalid;
}

type Values<F extends string> = Partial<Record<F, string | string[]>>;

type ParsedForm<S extends z.ZodRawShape> = { values: Values<keyof S & string> } & (
  { ok: true; data: z.output<z.ZodObject<S>> } | { ok: false; reply: FormReply<keyof S & string> }
);

/**
 * Reads the fields of `schema` from the form, once, and validates them. A field absent from the
 * form is undefined (an optional field was not sent); a list field (an array schema) has every
 * value of its name, none being an empty list, unless `shownBy` names a marker the form sends
 * when it shows the list: without the marker the list is absent. Refused: the first message of
 * each field, in the schema's order of checks, and what was typed, secrets (see `secret`) left
 * out. Checks that span fields are refinements of `schema` with the path of the field they
 * refuse. Accepted: the parsed data. Either way, what was typed (for the action's own refusals).
 */
export async function parseForm<S extends z.ZodRawShape>(
  source: Request | FormData,
  schema: z.ZodObject<S>,
  { shownBy = {} }: { shownBy?: Partial<Record<keyof S & string, string>> } = {},
): Promise<ParsedForm<S>> {
  type F = keyof S & string;
  const form = source instanceof FormData ? source : await source.formData();
  const typed: Record<string, string | string[]> = {};
  const values: Values<F> = {};
  for (const [name, field] of Object.entries(schema.shape) as [F, z.ZodType][]) {
    let value: string | string[] | undefined;
    if (isList(field)) {
      const marker = shownBy[name];
      // Files never reach an action (form-guard.server.ts); here they count as absent.
      if (marker === undefined || form.has(marker)) value = form.getAll(name).filter((v) => typeof v === "string");
    } else {
      const entry = form.get(name);
      if (typeof entry === "string") value = entry;
    }
    if (value === undefined) continue;
    typed[name] = value;
    if (!secrets.has(field)) values[name] = typeof value === "string" ? value.slice(0, ECHO_LIMIT) : value;
  }

  // What PostgreSQL cannot store (a NUL; a form cannot carry a lone surrogate, but the rule is
  // the API's too) is refused beside its field, before and whatever the field's own checks.
  const fieldErrors: Partial<Record<F, string>> = {};
  for (const [name, value] of Object.entries(typed) as [F, string | string[]][]) {
    if (![value].flat().every(isStorableText)) fieldErrors[name] = MESSAGES.fieldCharacters;
  }
  const parsed = schema.safeParse(typed, { error: fallbackMessage });
  if (parsed.success && Object.keys(fieldErrors).length === 0) return { ok: true, data: parsed.data, values };
  for (const issue of parsed.error?.issues ?? []) {
    const name = issue.path[0];
    if (typeof name === "string") fieldErrors[name as F] ??= issue.message;
  }
  return { ok: false, reply: { fieldErrors, values }, values };
}

/**
 * The answer of a refused submission: the reply, with the status that says why (400 unless told).
 * A refusal after parsing carries the parsed form's `values`: the page shows them again, and they
 * give the reply the form's field names (a reply without them types the page's reply as fieldless).
 */
export function refuse<F extends string = never, R extends string = never>(reply: FormReply<F, R>, status = 400) {
  return data(reply, { status });
}
