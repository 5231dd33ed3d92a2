// Euro amounts as Italian customers read them, the same string as Intl's "it-IT" currency format
// (euro.test.ts compares them), written out by hand: a browser's first Intl formatter costs 50 to
// 100 ms while the page hydrates (shared/rome-clock.ts says why).

/** 3200 → "32,00 €" (a no-break space before the sign, as Intl writes it) */
export function formatEuro(cents: number): string {
  const whole = Math.round(Math.abs(cents));
  const euros = String(Math.floor(whole / 100));
  // Italian groups thousands from five digits on: "1234,56 €", "12.345,67 €".
  const grouped = euros.length < 5 ? euros : euros.replace(/\B(?=(\d{3})+$)/g, ".");
  return `${cents < 0 ? "-" : ""}${grouped},${String(whole % 100).padStart(2, "0")}\u00a0€`;
}
