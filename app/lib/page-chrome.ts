// Which header and footer a page gets (spec §2 "Global behaviour"): each route says it in its
// `handle` ({ chrome: … }), and the root reads the deepest route's word. A page that says
// nothing gets the full header with the catalogue strip and the footer.
import type { UIMatch } from "react-router";

export type PageChrome = {
  /** "none": no header and no footer (the receipt, made to be printed). */
  header: "full" | "minimal" | "none";
  /** The strip of links to the publisher's catalogue sections above the full header. */
  topStrip: boolean;
  /** The dashboard has a dark header. */
  dark: boolean;
};

/** What a route module exports as `handle` to choose its chrome. */
export type ChromeHandle = { chrome: Partial<PageChrome> };

const FULL: PageChrome = { header: "full", topStrip: true, dark: false };

/** The spec's minimal-header pages (registration, password reset, first access, sign-in). */
export const MINIMAL_CHROME = { chrome: { header: "minimal" } } satisfies ChromeHandle;

/** The chrome of the matched routes: the innermost route that names a part decides it. */
export function chromeOf(matches: readonly Pick<UIMatch, "handle">[]): PageChrome {
  const chrome = { ...FULL };
  for (const { handle } of matches) {
    if (typeof handle === "object" && handle !== null && "chrome" in handle)
      Object.assign(chrome, (handle as ChromeHandle).chrome);
  }
  return chrome;
}
