// Password form pieces shared by the reset pages and the change-password page.
import { useState } from "react";
import { Form } from "react-router";
import { checkPassword } from "#shared/password-rule.ts";
import { MESSAGES } from "#shared/messages.ts";
import type { ReplyView } from "#app/lib/form-reply.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { AlertBox } from "./form-fields";
import { PageHeading } from "./page-heading";
import { documentTitle } from "./page-title";

/** The spec's hint list (§2 registration), ticked while typing once JavaScript runs. */
const HINTS: { key: keyof ReturnType<typeof checkPassword>; label: string }[] = [
  { key: "length", label: "8 caratteri o più" },
  { key: "special", label: "Almeno un carattere speciale (# ! ? -)" },
  { key: "uppercase", label: "1 lettera maiuscola" },
  { key: "digit", label: "1 numero" },
];

export function PasswordHints({ id, password }: { id: string; password: string }) {
  const hydrated = useHydrated();
  const met = checkPassword(password);
  return (
    <ul id={id} className="mt-2 space-y-1 text-sm text-muted">
      {HINTS.map((hint) => (
        <li key={hint.key} className={hydrated && met[hint.key] ? "text-green-800" : undefined}>
          <span aria-hidden="true">{hydrated && met[hint.key] ? "✓ " : "• "}</span>
          {hint.label}
        </li>
      ))}
    </ul>
  );
}

/** A password input with its label and error; extra `describedBy` ids (hints, an alert) come first. */
export function PasswordInput({
  name,
  label,
  autoComplete,
  error,
  invalid = false,
  describedBy = [],
  visible = false,
  onChange,
}: {
  name: string;
  label: string;
  autoComplete: "current-password" | "new-password";
  error?: string;
  /** Marked invalid without an error of its own (an alert above says why). */
  invalid?: boolean;
  describedBy?: string[];
  visible?: boolean;
  onChange?: (value: string) => void;
}) {
  const ids = [...describedBy, ...(error ? [`${name}-error`] : [])];
  return (
    <div>
      <label htmlFor={name} className="block text-sm font-semibold">
        {label}
      </label>
      <input
        id={name}
        name={name}
        type={visible ? "text" : "password"}
        autoComplete={autoComplete}
        required
        onChange={onChange ? (e) => onChange(e.target.value) : undefined}
        aria-invalid={error || invalid ? true : undefined}
        aria-describedby={ids.length > 0 ? ids.join(" ") : undefined}
        className="field"
      />
      {error && (
        <p id={`${name}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** The new password (with the rule's hints and a show/hide toggle) and its confirmation. */
export function NewPasswordFields({
  reply,
  passwordLabel = "Nuova password",
  confirmationLabel = "Conferma la nuova password",
}: {
  reply: Pick<ReplyView<"password" | "confirmation">, "error">;
  passwordLabel?: string;
  confirmationLabel?: string;
}) {
  const hydrated = useHydrated();
  const [visible, setVisible] = useState(false);
  // Tracks what is typed only for the live hints; the field itself stays uncontrolled.
  const [password, setPassword] = useState("");
  return (
    <>
      <div>
        <PasswordInput
          name="password"
          label={passwordLabel}
          autoComplete="new-password"
          error={reply.error("password")}
          describedBy={["password-hints"]}
          visible={visible}
          onChange={setPassword}
        />
        <PasswordHints id="password-hints" password={password} />
        {hydrated && (
          <button type="button" className="button-outline mt-2" onClick={() => setVisible((v) => !v)} aria-pressed={visible}>
            {visible ? "Nascondi le password" : "Mostra le password"}
          </button>
        )}
      </div>
      <PasswordInput
        name="confirmation"
        label={confirmationLabel}
        autoComplete="new-password"
        error={reply.error("confirmation")}
        visible={visible}
      />
    </>
  );
}

export type ResetPageText = {
  /** The page title and heading while the link is usable. */
  title: string;
  intro: string;
  submit: string;
  /** What a dead link says, and the way out. */
  expiredText: string;
  expiredLink: { href: string; label: string };
};

export function ResetPasswordView({
  usable,
  reply,
  text,
}: {
  usable: boolean;
  reply: ReplyView<"password" | "confirmation">;
  text: ResetPageText;
}) {
  return (
    <section className="mx-auto max-w-lg px-4 py-12">
      {!usable && <title>{documentTitle("Link scaduto")}</title>}
      <div className="card p-8">
        {usable ? (
          <>
            <PageHeading title={text.title} />
            <p className="mt-2 text-muted">{text.intro}</p>
            <AlertBox alert={reply.alert} />
            <Form method="post" noValidate className="mt-6 space-y-5">
              <NewPasswordFields reply={reply} />
              <button type="submit" className="button-primary w-full py-3 text-base">
                {text.submit}
              </button>
            </Form>
          </>
        ) : (
          <>
            <h1 className="font-serif text-3xl font-bold text-brand">{MESSAGES.linkExpired}</h1>
            <AlertBox alert={reply.alert} />
            <p className="mt-4">{text.expiredText}</p>
            <p className="mt-6">
              <a href={text.expiredLink.href} className="button-primary">
                {text.expiredLink.label}
              </a>
            </p>
          </>
        )}
      </div>
    </section>
  );
}
