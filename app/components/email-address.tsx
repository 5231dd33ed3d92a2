// An e-mail address that wraps, when the line is too short for it, before its '@' or before a
// dot (where typographers break an address), never in the middle of a word; a short last part
// (the '.it' of the domain) stays with the one before it rather than alone on a line; only a
// part still too long for the line on its own is broken where it must (overflow-wrap: anywhere).
// Copying it gives the address unchanged: <wbr> adds no text.
import { Fragment } from "react";

/** The pieces between which an address may wrap. */
export function emailLinePieces(address: string): string[] {
  const parts = address.split(/(?=[@.])/);
  const last = parts[parts.length - 1]!;
  if (parts.length > 2 && last.startsWith(".") && last.length <= 4) parts.splice(-2, 2, parts[parts.length - 2]! + last);
  return parts;
}

export function EmailAddress({ address }: { address: string }) {
  const parts = emailLinePieces(address);
  return (
    <span className="wrap-anywhere">
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
