// TRUST_PROXY: which proxies in front of the portal may tell it the client's address
// (X-Forwarded-For), scheme and host. Express walks X-Forwarded-For from the right, past the
// proxies it trusts, and takes the first address it does not trust: so it must trust exactly the
// proxies the operator runs, never a client. Read by server/config.ts, applied in server/http/.
import { isIP } from "node:net";

/**
 * What Express's `trust proxy` is given: false (trust nothing: the connection's address is the
 * client's), a number of proxies in front, or the proxies' addresses, subnets and Express's names
 * for ranges.
 */
export type TrustProxy = false | number | string[];

/** Express's names for address ranges (proxy-addr): 127.0.0.1/8 and ::1; 169.254.0.0/16 and fe80::/10; the private ranges and fc00::/7. */
const RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

const TRUST_PROXY_HELP =
  "set the number of proxies in front of the portal (TRUST_PROXY=1 behind one nginx) " +
  "or their addresses or subnets (TRUST_PROXY=loopback, or 10.0.0.5,10.1.0.0/16)";

/** An address, or a subnet as address/prefix length ("10.0.0.0/8", "fd00::/8"). */
function isAddressOrSubnet(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * The setting as Express takes it, or a message saying why it is refused. Unset, empty, `false`
 * and `0` trust nothing. `true` is refused: Express would then trust every address in the
 * header, the left-most of which any client writes itself.
 */
export function parseTrustProxy(value: string | undefined): { ok: true; trust: TrustProxy } | { ok: false; message: string } {
  const setting = (value ?? "").trim();
  if (setting === "" || setting === "false" || setting === "0") return { ok: true, trust: false };
  if (setting === "true") {
    return {
      ok: false,
      message: `true would trust every address in X-Forwarded-For, so any client could choose its own: ${TRUST_PROXY_HELP}`,
    };
  }
  if (/^\d+$/.test(setting)) return { ok: true, trust: Number(setting) };
  const entries = setting.split(",").map((entry) => entry.trim());
  const invalid = entries.filter((entry) => !RANGE_NAMES.has(entry) && !isAddressOrSubnet(entry));
  if (invalid.length > 0) {
    return {
      ok: false,
      message: `"${invalid.join('", "')}" is not a proxy's address, subnet or range name: ${TRUST_PROXY_HELP}`,
    };
  }
  return { ok: true, trust: entries };
}
