import { safeRedirectTarget } from "#shared/safe-redirect.ts";

export { safeRedirectTarget };

/** `/login/?redirect=...` or `/register/?redirect=...` back to `current`. */
export function withRedirect(path: string, current: string): string {
  return `${path}?${new URLSearchParams({ redirect: safeRedirectTarget(current) })}`;
}
