// One way to write a form (docs/decisions/005-one-way-to-write-a-form.md). An action that refuses a
// submission answers with a FormReply: each field's first message, an alert above the form (spec
// §8) and what was typed, so the page (rendered by the server, with or without JavaScript) shows
// the form again as it was. The server side reads and validates the form and builds the reply
// (form-reply.server.ts: parseForm, refuse); the page reads it with readReply, and the field
// components take their error and value from it. No zod here: this module is in the browser bundle
// of every form page.
import { replyOf, type NETWORK_FAILURE } from "./communication-failure";

/** An alert above a form (spec §8): a title and the reason, sometimes a way out. */
export type FormAlert = { title: string; text?: string; link?: { href: string; label: string } };

/** What every form action answers when it refuses a submission (field names `F`). */
export type FormReply<F extends string = never, R extends string = never> = {
  /** The first message of each refused field, shown beside it. */
  fieldErrors?: Partial<Record<F, string>>;
  /** What refused the form as a whole, shown above it. */
  alert?: FormAlert;
  /** What was typed (a list for checkboxes of one name), to fill the form again; never a password. */
  values?: Partial<Record<F, string | string[]>>;
  /** Why, for a page that shows more than the alert (which view, which field to mark); never shown. */
  reason?: R;
};

/** A reply as a page reads it: empty before any submission and after one lost on the network. */
export type ReplyView<F extends string, R extends string = never> = {
  alert?: FormAlert;
  reason?: R;
  values?: Partial<Record<F, string | string[]>>;
  error(name: F): string | undefined;
  /** What was typed in a single-value field. */
  value(name: F): string | undefined;
  /** What was ticked among the checkboxes named `name`. */
  list(name: F): string[] | undefined;
  /** A field's props in one call: its name, its error, and what was typed (else `fallback`). */
  field(name: F, fallback?: string): { name: F; error?: string; defaultValue?: string };
};

/**
 * The reply in a route's action data. A submission that never reached the server has none: the
 * root shows 'Errore di comunicazione' and the form keeps what was typed (communication-failure.ts).
 */
export function readReply<F extends string = never, R extends string = never>(
  actionData: FormReply<F, R> | typeof NETWORK_FAILURE | undefined,
): ReplyView<F, R> {
  const reply: FormReply<F, R> = replyOf(actionData) ?? {};
  const value = (name: F) => {
    const typed = reply.values?.[name];
    return typeof typed === "string" ? typed : undefined;
  };
  return {
    alert: reply.alert,
    reason: reply.reason,
    values: reply.values,
    error: (name) => reply.fieldErrors?.[name],
    value,
    list: (name) => {
      const typed = reply.values?.[name];
      return Array.isArray(typed) ? typed : undefined;
    },
    field: (name, fallback) => ({ name, error: reply.fieldErrors?.[name], defaultValue: value(name) ?? fallback }),
  };
}

/** A refusal's messages as the page's heading shows them: the title says so, the summary lists them. */
export type Refusal = { fieldErrors: Record<string, string>; alert?: FormAlert };

/** The refusal in any action data (a route's action may answer other things too), else undefined. */
export function refusalOf(actionData: unknown): Refusal | undefined {
  const reply = replyOf(actionData);
  if (typeof reply !== "object" || reply === null) return undefined;
  const { fieldErrors = {}, alert } = reply as FormReply<string>;
  const messages = Object.fromEntries(Object.entries(fieldErrors).filter((e): e is [string, string] => Boolean(e[1])));
  return Object.keys(messages).length > 0 || alert ? { fieldErrors: messages, alert } : undefined;
}
