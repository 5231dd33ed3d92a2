import { Link } from "react-router";

/** Whether an address is one of the portal's own pages: a path ("//host" is another site). */
function isInternal(href: string): boolean {
  return href.startsWith("/") && !href.startsWith("//");
}

/**
 * A link to a portal page (client-side navigation once hydrated) or to another site (a plain
 * anchor: the publisher's shop, course platform, mail addresses).
 */
export function SiteLink({ href, className, children }: { href: string; className?: string; children: React.ReactNode }) {
  return isInternal(href) ? (
    <Link to={href} className={className}>
      {children}
    </Link>
  ) : (
    <a href={href} className={className}>
      {children}
    </a>
  );
}
