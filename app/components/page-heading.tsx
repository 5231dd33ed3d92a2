// A page's title and its heading, said once: the browser's title (its tab, its history, what a
// screen reader announces on arrival) and the page's <h1>. The heading shows `children` when it
// says more than the title (a greeting, a question). After a refused submission the title starts
// with 'Errore: ' and the error summary follows the heading, with or without JavaScript: the
// refusal is the route's action data (lib/form-reply.ts), or `errors` a page was given otherwise.
import { useMemo, type ReactNode } from "react";
import { useActionData } from "react-router";
import { refusalOf } from "../lib/form-reply";
import { ErrorSummary } from "./form-fields";

const SITE_NAME = "Novalex Editore";

/** The document title of a page, and of a page showing a refusal. */
export function documentTitle(title: string, refused = false) {
  return `${refused ? "Errore: " : ""}${title} · ${SITE_NAME}`;
}

export function PageHeading({
  title,
  className,
  errors,
  children,
}: {
  title: string;
  className?: string;
  /** Messages of fields refused other than by the action (a step checked by the loader). */
  errors?: Partial<Record<string, string>>;
  children?: ReactNode;
}) {
  const actionData = useActionData();
  // Once per reply: the summary takes focus when its messages change, not at every render.
  const refusal = useMemo(() => refusalOf(actionData), [actionData]);
  const messages = refusal?.fieldErrors ?? errors ?? {};
  const refused = Boolean(refusal) || Object.values(messages).some(Boolean);
  return (
    <>
      <title>{documentTitle(title, refused)}</title>
      <h1 className={`${className ? `${className} ` : ""}font-serif text-3xl font-bold text-brand`}>{children ?? title}</h1>
      <ErrorSummary errors={messages} />
    </>
  );
}
