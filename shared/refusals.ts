// A use-case's refusals, read by both doors that serve it: the page's action shows the message
// with the status, the API answers the same message with the same status. One table per
// use-case, keyed by the reasons its service returns, so a rule changed there changes both doors.
import { MESSAGES } from "./messages.ts";

/** The statuses a use-case's refusal may carry (the API's own, like 405 or 413, are not a use-case's). */
type RefusalStatus = 400 | 401 | 403 | 404 | 409 | 429;

export type Refusal = {
  /** The Italian message both doors show. */
  readonly message: string;
  readonly status: RefusalStatus;
  /** The input at fault, as the API names it, when the refusal is about one field. */
  readonly field?: string;
};

export type RefusalTable<Reason extends string> = Readonly<Record<Reason, Refusal>>;

/** A refusal that lasts a while (a lock, a limit): its message says, in both doors, when to try again. */
export function withRetryAfter(refusal: Refusal, retryAfterSeconds: number): Refusal {
  return { ...refusal, message: `${refusal.message} ${MESSAGES.retryAfter(retryAfterSeconds)}` };
}
