// Which header a page gets is decided on the server from the address (spec §2 "Global behaviour").

type HeaderVariant = "full" | "minimal" | "none";
export type Layout = {
  header: HeaderVariant;
  /** The strip of links to the publisher's catalogue sections above the header. */
  showTopStrip: boolean;
  /** The dashboard has a dark header. */
  dark: boolean;
};

export const ACTIVATION_PROMPT_PATHS = [
  "/attivaprodotto",
  "/attivaomaggio",
  "/attivaebook",
  "/attivaebookedu",
  "/attivadaecomm",
] as const;
// The spec's minimal-header pages, plus the login screen of the sign-in flow.
const MINIMAL_HEADER_PREFIXES = ["/register", "/forgot-password", "/profilo/primoaccesso", "/accedi"];
const RECEIPT_PREFIX = "/ricevuta";

function isUnder(pathname: string, prefix: string) {
  return pathname === prefix || pathname.startsWith(`${prefix}/`);
}

export function layoutFor(pathname: string): Layout {
  if (isUnder(pathname, RECEIPT_PREFIX)) return { header: "none", showTopStrip: false, dark: false };
  if (pathname === "/" || MINIMAL_HEADER_PREFIXES.some((p) => isUnder(pathname, p))) {
    return { header: "minimal", showTopStrip: false, dark: false };
  }
  return {
    header: "full",
    showTopStrip: !ACTIVATION_PROMPT_PATHS.some((p) => isUnder(pathname, p)),
    dark: isUnder(pathname, "/dashboard"),
  };
}
