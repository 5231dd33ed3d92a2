// The pieces every form of the portal is made of: labelled fields whose errors are announced
// (aria-invalid, aria-describedby) and rendered by the server, so they work without JavaScript.
// They take their errors and values from the action's reply (lib/form-reply.ts). Each field's id,
// and those of its hint and error, come from React's useId: unique on the page, the same on the
// server and in the browser; tests and scripts find a field by its label or its name. A refused
// field's id is its name instead, so the error summary under the page's
// heading (error-summary.tsx) can link to it: a page shows one reply, so one field per name is refused.
import { useId } from "react";
import type { FormAlert } from "#app/lib/form-reply.ts";

export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="field-error">
      {message}
    </p>
  ) : null;
}

/** The ids a field needs: its own (its name when refused), its hint's and its error's. */
function useFieldIds(name: string, error?: string) {
  const generated = useId();
  const id = error ? name : generated;
  return { id, hintId: `${generated}-hint`, errorId: `${generated}-error` };
}

type FieldNotes = {
  /** Ids of other elements that describe the field (a hint list, an alert), before its own. */
  describedBy?: string[];
  /** A line of help under the field. */
  hint?: React.ReactNode;
  error?: string;
};

/** What describes a field, in order: ids from outside, its hint, its error. */
function describedByOf(ids: { hintId: string; errorId: string }, { describedBy = [], hint, error }: FieldNotes) {
  const all = [...describedBy, ...(hint ? [ids.hintId] : []), ...(error ? [ids.errorId] : [])];
  return all.length > 0 ? all.join(" ") : undefined;
}

function FieldLabel({ htmlFor, label, note }: { htmlFor: string; label: React.ReactNode; note?: string }) {
  return (
    <label htmlFor={htmlFor} className="block text-sm font-semibold">
      {label}
      {note && <span className="font-normal text-muted"> ({note})</span>}
    </label>
  );
}

function FieldHint({ id, hint }: { id: string; hint?: React.ReactNode }) {
  return hint ? (
    <p id={id} className="mt-1 text-xs text-muted">
      {hint}
    </p>
  ) : null;
}

/** An input with its label, its hint and its error message. */
export function TextField({
  name,
  label,
  type = "text",
  autoComplete,
  defaultValue,
  error,
  required = true,
  maxLength,
  describedBy,
  hint,
  optionalNote,
  inputMode,
  placeholder,
}: FieldNotes & {
  name: string;
  label: string;
  type?: "text" | "email" | "password" | "tel";
  autoComplete?: string;
  defaultValue?: string;
  required?: boolean;
  maxLength?: number;
  /** Shown after the label of a field that may stay empty. */
  optionalNote?: string;
  inputMode?: "numeric" | "text" | "tel" | "email";
  placeholder?: string;
}) {
  const ids = useFieldIds(name, error);
  return (
    <div>
      <FieldLabel htmlFor={ids.id} label={label} note={optionalNote} />
      <input
        id={ids.id}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={required}
        defaultValue={defaultValue}
        maxLength={maxLength}
        inputMode={inputMode}
        placeholder={placeholder}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedByOf(ids, { describedBy, hint, error })}
        className="field"
      />
      <FieldHint id={ids.hintId} hint={hint} />
      <FieldError id={ids.errorId} message={error} />
    </div>
  );
}

/** A checkbox with its label and, when refused, its message; ticked, it posts "1". */
export function CheckboxField({
  name,
  defaultChecked,
  error,
  children,
}: {
  name: string;
  defaultChecked: boolean;
  error?: string;
  children: React.ReactNode;
}) {
  const ids = useFieldIds(name, error);
  return (
    <div>
      <label className="flex items-start gap-2">
        <input
          id={ids.id}
          type="checkbox"
          name={name}
          value="1"
          defaultChecked={defaultChecked}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedByOf(ids, { error })}
          className="mt-1"
        />
        <span>{children}</span>
      </label>
      <FieldError id={ids.errorId} message={error} />
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
  const ids = useFieldIds("interests", error);
  return (
    <fieldset aria-describedby={describedByOf(ids, { describedBy: [ids.hintId], error })}>
      <legend className={compact ? "block text-sm font-semibold" : "text-lg font-semibold"}>{legend}</legend>
      <p id={ids.hintId} className={`${compact ? "text-xs" : "text-sm"} text-muted`}>
        Seleziona almeno un ambito.
      </p>
      <div className={`${compact ? "mt-2 text-sm" : "mt-3"} grid gap-2 sm:grid-cols-2`}>
        {interests.map((i, index) => (
          <label key={i.id} className="flex items-start gap-2">
            <input
              id={index === 0 && error ? ids.id : undefined}
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
      <FieldError id={ids.errorId} message={error} />
    </fieldset>
  );
}

type Choice = { id: string; name: string };

/**
 * A select with its label, a "choose…" first option, its hint and its error message. Uncontrolled
 * (`defaultValue`) or controlled (`value` and `onChange`); `disabled` shows a choice that can no
 * longer change (and is not posted). `groups` offers the choices in <optgroup>s instead of `options`.
 */
export function SelectField({
  name,
  label,
  note,
  placeholder,
  options = [],
  groups,
  defaultValue,
  value,
  onChange,
  disabled = false,
  hint,
  error,
}: Omit<FieldNotes, "describedBy"> & {
  name: string;
  label: string;
  /** Shown after the label, e.g. whom the field is for. */
  note?: string;
  placeholder: string;
  options?: readonly Choice[];
  groups?: readonly (Choice & { options: readonly Choice[] })[];
  defaultValue?: string;
  value?: string;
  onChange?: (value: string) => void;
  disabled?: boolean;
}) {
  const ids = useFieldIds(name, error);
  const choices = (list: readonly Choice[]) =>
    list.map((o) => (
      <option key={o.id} value={o.id}>
        {o.name}
      </option>
    ));
  return (
    <div>
      <FieldLabel htmlFor={ids.id} label={label} note={note} />
      <select
        id={ids.id}
        name={name}
        required
        disabled={disabled}
        {...(value === undefined ? { defaultValue: defaultValue ?? "" } : { value })}
        onChange={onChange && ((e) => onChange(e.target.value))}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedByOf(ids, { hint, error })}
        className="field disabled:bg-paper disabled:text-muted"
      >
        <option value="">{placeholder}</option>
        {groups
          ? groups.map((g) => (
              <optgroup key={g.id} label={g.name}>
                {choices(g.options)}
              </optgroup>
            ))
          : choices(options)}
      </select>
      <FieldHint id={ids.hintId} hint={hint} />
      <FieldError id={ids.errorId} message={error} />
    </div>
  );
}
