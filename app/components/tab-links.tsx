import { Link } from "react-router";

export type TabLink = { id: string; label: string; href: string; count: number };

/**
 * Tabs that are links (the dashboard's filters, the tabs of my products): they work without
 * JavaScript; with it they navigate in place and keep the scroll position. Each shows its count.
 */
export function TabLinks({
  label,
  tabs,
  current,
  className,
}: {
  label: string;
  tabs: readonly TabLink[];
  current: string;
  className?: string;
}) {
  return (
    <nav aria-label={label} className={className}>
      <ul className="flex flex-wrap gap-x-1 border-b border-line">
        {tabs.map((tab) => {
          const active = tab.id === current;
          return (
            <li key={tab.id}>
              <Link
                to={tab.href}
                preventScrollReset
                aria-current={active ? "page" : undefined}
                className={`-mb-px inline-flex items-center gap-2 border-b-2 px-3 py-2 text-sm font-semibold ${
                  active ? "border-accent text-brand" : "border-transparent text-muted hover:border-line hover:text-brand"
                }`}
              >
                {tab.label}
                <span
                  className={`rounded-full px-2 py-0.5 text-xs ${active ? "bg-accent text-white" : "bg-brand-light text-brand"}`}
                >
                  {tab.count}
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
