// The portal signs its customers in through its own identity provider, and reaches it as a browser
// does: through PUBLIC_ORIGIN (discovery, token and keys). An instance without a route back to its
// public address, or behind TLS with a certificate it does not trust, would fail every sign-in while
// serving every other page: this check says so at start and in readiness.
import type { Clock } from "#server/lib/clock.ts";

export type OwnProviderReach = { ok: true } | { ok: false; reason: string };
/** `passing`: the proxy answered in the provider's stead, a success that is not kept. */
type Probed = { ok: true; passing?: true } | { ok: false; reason: string };

/** A success is believed this long: readiness is asked every few seconds, through the proxy. */
const REACHED_FOR_MS = 30_000;
/** What a proxy answers when no instance behind it takes the request. */
const PROXY_WITHOUT_UPSTREAM = new Set([502, 503, 504]);
/** The probe's User-Agent: its own requests are logged at debug level, not every 30 s at info. */
export const PROBE_USER_AGENT = "portal-readiness-probe";
/** How long the provider may take to answer its discovery document. */
const TIMEOUT_MS = 3_000;

export function createOwnProviderCheck({
  issuer,
  now,
  fetch = globalThis.fetch,
  timeoutMs = TIMEOUT_MS,
}: {
  issuer: string;
  now: Clock;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
}): () => Promise<OwnProviderReach> {
  const discoveryUrl = `${issuer}/.well-known/openid-configuration`;
  let reachedAt: number | null = null;
  let probing: Promise<Probed> | null = null;

  async function probe(): Promise<Probed> {
    try {
      const response = await fetch(discoveryUrl, {
        headers: { accept: "application/json", "user-agent": PROBE_USER_AGENT },
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The proxy answered for want of a ready instance (this one's first start, or every one
      // restarting): the route and its certificate work. Failing here would keep an instance unready
      // behind a proxy that waits for readiness, which then never sends this request on.
      // Not believed for long, though: asked again at the next probe.
      if (PROXY_WITHOUT_UPSTREAM.has(response.status)) return { ok: true, passing: true };
      if (!response.ok) return { ok: false, reason: `${discoveryUrl} answered ${response.status}` };
      const document = (await response.json().catch(() => ({}))) as { issuer?: unknown };
      const answered = document.issuer;
      // Another site at that address (a proxy's default server) is not this portal's provider.
      if (answered !== issuer)
        return { ok: false, reason: `${discoveryUrl} is not this portal's provider (issuer ${String(answered)})` };
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: `${discoveryUrl} unreachable: ${describe(error)}` };
    }
  }

  return async () => {
    if (reachedAt !== null && now().getTime() - reachedAt < REACHED_FOR_MS) return { ok: true };
    // Readiness probes arriving together share one request.
    probing ??= probe().finally(() => (probing = null));
    const probed = await probing;
    reachedAt = probed.ok && !probed.passing ? now().getTime() : null;
    return probed.ok ? { ok: true } : probed;
  };
}

/** fetch's "fetch failed" hides the reason in its cause: a refused connection, an untrusted certificate. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return "no answer in time";
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}
