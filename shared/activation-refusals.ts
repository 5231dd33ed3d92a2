// Why an activation code was not redeemed, as both doors answer it: the modal's action
// (/prodotti/attiva) and the API's order_create_with_codiceattivazione. A locked customer or
// address is told "invalid" like a wrong code (server/security/rate-limits.ts: a lock must not
// tell a guesser anything), so there is no 429 here.
import type { ActivationResult } from "#server/commerce/activation.ts";
import { MESSAGES } from "./messages.ts";
import type { RefusalTable } from "./refusals.ts";

export type ActivationRefusal = Extract<ActivationResult, { ok: false }>["reason"];

export const ACTIVATION_REFUSALS: RefusalTable<ActivationRefusal> = {
  /** No such code, used up, closed, or a lock: the invalid mark (spec §8). */
  invalid: { message: MESSAGES.activationCodeInvalid, status: 404 },
  /** This customer has activated it before: the product is already theirs. */
  already_redeemed: { message: MESSAGES.activationAlreadyRedeemed, status: 409 },
};
