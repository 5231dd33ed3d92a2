import { safeRedirectTarget } from "../../server/lib/safe-redirect";

export { safeRedirectTarget };

/** `/login/?redirect=...` or `/register/?redirect=...` back to `current`. */
export function withRedirect(path: string, current: string): string {
  return `${path}?${new URLSearchParams({ redirect: safeRedirectTarget(current) })}`;
}
