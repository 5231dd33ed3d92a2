import { HOME_PATH } from "./links.ts";

const BASE = "http://portal.invalid";

/**
 * Accepts only same-origin relative paths as a place to go back to; anything else (absolute
 * URLs, protocol-relative `//host`, backslash tricks) becomes the fallback, the home page. The
 * target is normalised first (dot segments, `%2e`, backslashes) and the check runs on the
 * result, since that is what the browser follows: `/.//evil.example` normalises to `//evil.example`.
 */
export function safeRedirectTarget(target: string | null | undefined, fallback = HOME_PATH): string {
  if (!target?.startsWith("/")) return fallback;
  try {
    const url = new URL(target, BASE);
    if (url.origin !== BASE) return fallback;
    const path = url.pathname + url.search + url.hash;
    // The normalised path must itself stay on this origin when a browser resolves it.
    return new URL(path, BASE).origin === BASE ? path : fallback;
  } catch {
    return fallback;
  }
}
