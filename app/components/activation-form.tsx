import { useEffect, useRef, useState } from "react";
import { Link, useFetcher } from "react-router";
import { ACTIVATION_REFUSALS } from "#shared/activation-refusals.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { ACTIVATE_PRODUCT_PATH } from "#shared/links.ts";

/** How long typing must pause before the code is checked. */
const VERIFY_DELAY_MS = 300;

export type CodeMark = "empty" | "valid" | "invalid" | "already";
/** The action's answer short of an activation (which redirects to the dashboard with a toast). */
export type ActivationResult = { state: CodeMark; code: string };

/**
 * The code field of 'ESPANDI IL LIBRO' (spec §4, §5). Without JavaScript it is a plain form: the
 * server activates a good code and shows the mark of a bad one. With JavaScript the code is
 * checked as the user types (empty: no mark; valid; invalid) and Conferma acts only when valid.
 * An activation answers, with or without JavaScript, with a redirect to the dashboard and its
 * success toast; the router follows it in place of the modal's history entry.
 */
export function ActivationForm({ cancelTo, result }: { cancelTo: string; result?: ActivationResult }) {
  const hydrated = useHydrated();
  const verifier = useFetcher<ActivationResult>();
  const activator = useFetcher<ActivationResult>();
  const [code, setCode] = useState(result && "code" in result ? result.code : "");
  const field = useRef<HTMLInputElement>(null);

  // What was typed before the page became interactive is in the field, not yet in the state.
  useEffect(() => {
    if (field.current && field.current.value !== code) setCode(field.current.value);
    // Once, when hydrated.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const trimmed = code.trim();

  useEffect(() => {
    if (!hydrated || trimmed === "") return;
    const timer = setTimeout(
      () =>
        void verifier.submit(
          { intent: "verify", code: trimmed, mode: "fetch" },
          { method: "post", action: ACTIVATE_PRODUCT_PATH },
        ),
      VERIFY_DELAY_MS,
    );
    return () => clearTimeout(timer);
    // `verifier` changes identity with its state; the check depends on the code only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [hydrated, trimmed]);

  const mark = markOf(hydrated, trimmed, result, verifier.data, activator.data);
  const busy = activator.state !== "idle";

  function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    if (!hydrated) return;
    event.preventDefault();
    if (mark !== "valid" || busy) return;
    void activator.submit(
      { intent: "activate", code: trimmed, mode: "fetch" },
      { method: "post", action: ACTIVATE_PRODUCT_PATH },
    );
  }

  return (
    <form method="post" action={ACTIVATE_PRODUCT_PATH} onSubmit={onSubmit} className="mt-4">
      <input type="hidden" name="intent" value="activate" />
      <label htmlFor={ACTIVATION_CODE_FIELD_ID} className="block text-sm font-semibold">
        Codice di attivazione
      </label>
      <div className="relative mt-1">
        <input
          ref={field}
          id={ACTIVATION_CODE_FIELD_ID}
          name="code"
          type="text"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={64}
          placeholder="XXXX-XXXX-XXXX-XXXX"
          value={code}
          onChange={(event) => setCode(event.target.value)}
          aria-invalid={mark === "invalid" || mark === "already" ? true : undefined}
          aria-describedby={mark === "empty" ? undefined : "activation-code-note"}
          className="field pr-10 font-mono tracking-wider uppercase"
        />
        <CodeMarkIcon mark={mark} />
      </div>
      {/* Always there, so that a screen reader hears each change of it (a live region). */}
      <p id="activation-code-note" role="status" className={mark === "valid" ? "mt-1 text-sm text-green-700" : "field-error"}>
        {MARK_TEXT[mark]}
      </p>
      <div className="mt-6 flex justify-end gap-3">
        <Link to={cancelTo} replace className="button-outline">
          Annulla
        </Link>
        <button type="submit" className="button-primary" aria-disabled={hydrated && mark !== "valid" ? true : undefined}>
          Conferma
        </button>
      </div>
    </form>
  );
}

/** The mark next to the field: what the server last said about the code now in the field. */
function markOf(
  hydrated: boolean,
  trimmed: string,
  initial: ActivationResult | undefined,
  verified: ActivationResult | undefined,
  activation: ActivationResult | undefined,
): CodeMark {
  if (trimmed === "") return "empty";
  for (const answer of [activation, verified, hydrated ? undefined : initial]) {
    if (answer && answer.code === trimmed) return answer.state;
  }
  return "empty";
}

/** The code field's id: the error summary of the page version links to it. */
export const ACTIVATION_CODE_FIELD_ID = "activation-code";

/** What the mark says in words, under the field (the sign beside it is not enough), and in the page version's error summary. */
export const MARK_TEXT: Record<CodeMark, string> = {
  empty: "",
  valid: "Codice valido",
  invalid: ACTIVATION_REFUSALS.invalid.message,
  already: ACTIVATION_REFUSALS.already_redeemed.message,
};

/** The sign beside the field; its words are the note under it. */
function CodeMarkIcon({ mark }: { mark: CodeMark }) {
  if (mark === "empty") return null;
  const valid = mark === "valid";
  return (
    <span
      aria-hidden="true"
      data-mark={valid ? "codeValid" : "codeInvalid"}
      className={`absolute inset-y-0 right-3 grid place-items-center text-lg font-bold ${valid ? "text-green-700" : "text-accent-dark"}`}
    >
      {valid ? "✓" : "✗"}
    </span>
  );
}
