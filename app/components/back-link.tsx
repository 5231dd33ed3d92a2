// The link back to the page above, at the top of an account page: '← Il mio account'.
import type { ReactNode } from "react";
import { Link } from "react-router";

export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <p>
      <Link to={to} className="link text-sm">
        <span aria-hidden="true">← </span>
        {children}
      </Link>
    </p>
  );
}
