/**
 * Accepts only same-origin relative paths as a place to go back to; anything else (absolute
 * URLs, protocol-relative `//host`, backslash tricks) becomes the fallback, "/".
 */
export function safeRedirectTarget(target: string | null | undefined, fallback = "/"): string {
  if (!target || !target.startsWith("/") || target.startsWith("//") || target.includes("\\")) return fallback;
  try {
    const base = "http://portal.invalid";
    const url = new URL(target, base);
    if (url.origin !== base) return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}
