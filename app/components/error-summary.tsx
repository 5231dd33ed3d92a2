// The error summary of a refused form, first after the page's heading (page-heading.tsx): its
// own module, because every page's heading carries it (form-fields.tsx stays on form pages).
import { useEffect, useRef } from "react";

/**
 * Follows a summary's link by focusing the field itself: a refused field's id is its name
 * (form-fields.tsx), else the first control of that name.
 * With JavaScript the router would take the change of the address's fragment for a navigation
 * and drop the reply, errors and all.
 */
function focusField(event: React.MouseEvent<HTMLAnchorElement>, name: string) {
  event.preventDefault();
  const field = document.getElementById(name) ?? document.querySelector<HTMLElement>(`main [name="${CSS.escape(name)}"]`);
  field?.focus();
}

/**
 * The list of a refused form's messages, each a link to its field, first after the page's heading.
 * With JavaScript it takes focus when a reply arrives, so a screen reader reads it at once (a
 * submission through fetch changes nothing else a screen reader would notice).
 */
export function ErrorSummary({ errors }: { errors: Partial<Record<string, string>> }) {
  const ref = useRef<HTMLDivElement>(null);
  const entries = Object.entries(errors).filter((e): e is [string, string] => Boolean(e[1]));
  useEffect(() => {
    ref.current?.focus();
  }, [errors]);
  if (entries.length === 0) return null;
  return (
    <div
      ref={ref}
      tabIndex={-1}
      aria-labelledby="riepilogo-errori"
      className="mt-6 rounded-md border-2 border-accent bg-accent/5 p-4"
      data-error-summary
    >
      <h2 id="riepilogo-errori" className="font-semibold text-accent-dark">
        {entries.length === 1 ? "C'è un errore da correggere" : `Ci sono ${entries.length} errori da correggere`}
      </h2>
      <ul className="mt-2 list-disc pl-5 text-sm">
        {entries.map(([name, message]) => (
          <li key={name}>
            <a href={`#${name}`} onClick={(event) => focusField(event, name)} className="link">
              {message}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
