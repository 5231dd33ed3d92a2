// An e-mail address that wraps, when the line is too short for it, before its '@' or before a
// dot (where typographers break an address), never in the middle of a word; only a part still
// too long for the line on its own is broken where it must (overflow-wrap: anywhere). Copying
// it gives the address unchanged: <wbr> adds no text.
import { Fragment } from "react";

export function EmailAddress({ address }: { address: string }) {
  const parts = address.split(/(?=[@.])/);
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
