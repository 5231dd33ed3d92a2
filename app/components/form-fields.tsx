// The pieces every form of the portal is made of: labelled fields whose errors are announced
// (aria-invalid, aria-describedby) and rendered by the server, so they work without JavaScript.
// They take their errors and values from the action's reply (lib/form-reply.ts).
import type { FormAlert } from "../lib/form-reply";

export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="field-error">
      {message}
    </p>
  ) : null;
}

/** An input with its label and error message; `describedBy` adds hint ids before the error's. */
export function TextField({
  name,
  label,
  type = "text",
  autoComplete,
  defaultValue,
  error,
  required = true,
  maxLength,
  describedBy = [],
  optionalNote,
  inputMode,
  placeholder,
}: {
  name: string;
  label: string;
  type?: "text" | "email" | "password" | "tel";
  autoComplete?: string;
  defaultValue?: string;
  error?: string;
  required?: boolean;
  maxLength?: number;
  describedBy?: string[];
  /** Shown after the label of a field that may stay empty. */
  optionalNote?: string;
  inputMode?: "numeric" | "text" | "tel" | "email";
  placeholder?: string;
}) {
  const ids = [...describedBy, ...(error ? [`${name}-error`] : [])];
  return (
    <div>
      <label htmlFor={name} className="block text-sm font-semibold">
        {label}
        {optionalNote && <span className="font-normal text-muted"> ({optionalNote})</span>}
      </label>
      <input
        id={name}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={required}
        defaultValue={defaultValue}
        maxLength={maxLength}
        inputMode={inputMode}
        placeholder={placeholder}
        aria-invalid={error ? true : undefined}
        aria-describedby={ids.length > 0 ? ids.join(" ") : undefined}
        className="field"
      />
      <FieldError id={`${name}-error`} message={error} />
    </div>
  );
}

/** An alert above a form (spec §8): a title and the reason, sometimes a way out; nothing without one. */
export function AlertBox({ alert, id }: { alert?: FormAlert; id?: string }) {
  if (!alert) return null;
  return (
    <div id={id} role="alert" className="mt-6 rounded-md border border-accent bg-accent/5 p-4">
      <p className="font-semibold text-accent-dark">{alert.title}</p>
      {alert.text && <p className="mt-1 text-sm">{alert.text}</p>}
      {alert.link && (
        <a href={alert.link.href} className="link mt-2 inline-block text-sm">
          {alert.link.label}
        </a>
      )}
    </div>
  );
}

/** The interests checklist of first access and of the account page ("at least one"). */
export function InterestChoices({
  legend,
  interests,
  checked,
  error,
  compact = false,
}: {
  legend: React.ReactNode;
  interests: { id: string; name: string }[];
  checked: ReadonlySet<string>;
  error?: string;
  /** Smaller text, inside a longer form. */
  compact?: boolean;
}) {
  return (
    <fieldset aria-describedby={`interests-hint${error ? " interests-error" : ""}`}>
      <legend className={compact ? "block text-sm font-semibold" : "text-lg font-semibold"}>{legend}</legend>
      <p id="interests-hint" className={`${compact ? "text-xs" : "text-sm"} text-muted`}>
        Seleziona almeno un ambito.
      </p>
      <div className={`${compact ? "mt-2 text-sm" : "mt-3"} grid gap-2 sm:grid-cols-2`}>
        {interests.map((i) => (
          <label key={i.id} className="flex items-start gap-2">
            <input
              type="checkbox"
              name="interests"
              value={i.id}
              defaultChecked={checked.has(i.id)}
              aria-invalid={error ? true : undefined}
              className="mt-1"
            />
            <span>{i.name}</span>
          </label>
        ))}
      </div>
      <FieldError id="interests-error" message={error} />
    </fieldset>
  );
}

/** A select with its label, a "choose…" first option and its error message. */
export function SelectField({
  name,
  label,
  placeholder,
  options,
  defaultValue,
  error,
}: {
  name: string;
  label: string;
  placeholder: string;
  options: { id: string; name: string }[];
  defaultValue?: string;
  error?: string;
}) {
  return (
    <div>
      <label htmlFor={name} className="block text-sm font-semibold">
        {label}
      </label>
      <select
        id={name}
        name={name}
        required
        defaultValue={defaultValue ?? ""}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${name}-error` : undefined}
        className="field"
      >
        <option value="">{placeholder}</option>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
      <FieldError id={`${name}-error`} message={error} />
    </div>
  );
}
