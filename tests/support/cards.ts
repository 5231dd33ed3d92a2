/** A card expiry (MM/AA) two years after today: good on whatever day the tests run. */
export function futureExpiry(separator = "/"): string {
  return `12${separator}${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}`;
}
