// PLACEHOLDER — being written (activation codes: verify, activate, batches).
import type { Database } from "../db/client.ts";
import type { RateLimits } from "../security/rate-limits.ts";

export type ActivationOptions = { db: Database; codeKey: string; rateLimits: RateLimits };

export function createActivation(_options: ActivationOptions) {
  return {};
}

export type Activation = ReturnType<typeof createActivation>;
