// The heading of a page (page-title.tsx) and, after a refused submission, what says so with or
// without JavaScript: the title starts with 'Errore: ' and the error summary follows the heading.
// The refusal is the route's action data (lib/form-reply.ts), or `errors` a page was given
// otherwise.
import { useMemo, type ReactNode } from "react";
import { useActionData } from "react-router";
import { refusalOf } from "#app/lib/form-reply.ts";
import { ErrorSummary } from "./error-summary";
import { TitledHeading } from "./page-title";

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
      <TitledHeading title={title} className={className} refused={refused}>
        {children}
      </TitledHeading>
      <ErrorSummary errors={messages} />
    </>
  );
}
