// How a payment was made: 'Carta di Credito' with the card's brand mark and last 4 digits, or
// 'Bonifico bancario' (spec §2: the history shows the brand icon and the last 4 digits).
import { cardBrandLabel, isCardMethod } from "#shared/commerce-constants.ts";

type Payment = { methodCode: string; method: string; cardBrand: string | null; cardLast4: string | null };

/** A small brand mark drawn inline (no image request, no third-party artwork); the name is in the text beside it. */
function BrandMark({ brand }: { brand: string | null }) {
  const key = brand?.toLowerCase() ?? "";
  const frame = "inline-block h-5 w-8 shrink-0 rounded-sm border border-line bg-white";
  if (key === "mastercard" || key === "maestro") {
    return (
      <svg viewBox="0 0 32 20" className={frame} aria-hidden="true">
        <circle cx="13" cy="10" r="6" fill="#eb001b" />
        <circle cx="19" cy="10" r="6" fill={key === "maestro" ? "#00a2e5" : "#f79e1b"} fillOpacity="0.85" />
      </svg>
    );
  }
  const text = key === "visa" ? "VISA" : key === "amex" ? "AMEX" : null;
  if (text) {
    return (
      <svg viewBox="0 0 32 20" className={frame} aria-hidden="true">
        <text
          x="16"
          y="14"
          textAnchor="middle"
          fontSize={key === "visa" ? 9 : 7.5}
          fontWeight="700"
          fontStyle={key === "visa" ? "italic" : undefined}
          fill={key === "visa" ? "#1a1f71" : "#2e77bb"}
          fontFamily="Arial, Helvetica, sans-serif"
        >
          {text}
        </text>
      </svg>
    );
  }
  return (
    <svg viewBox="0 0 32 20" className={frame} aria-hidden="true">
      <rect x="4" y="5" width="24" height="3" fill="#5b6472" />
      <rect x="6" y="12" width="8" height="2" fill="#5b6472" />
    </svg>
  );
}

/** "Carta di Credito · [Visa] •••• 4242", or "Bonifico bancario". */
export function PaymentMethod({ payment }: { payment: Payment }) {
  if (!isCardMethod(payment.methodCode)) return <span>{payment.method}</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
      <span>{payment.method}</span>
      <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
        <BrandMark brand={payment.cardBrand} />
        <span>{cardBrandLabel(payment.cardBrand)}</span>
        {payment.cardLast4 && (
          <span>
            <span aria-hidden="true">•••• </span>
            <span className="sr-only">che termina con </span>
            {payment.cardLast4}
          </span>
        )}
      </span>
    </span>
  );
}
