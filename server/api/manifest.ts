// The manifests of §3 and §7: the root one (/api/manifest.json) describes the modules a client
// needs at start-up (aaa, order, media) and lists, in `relations`, the manifests of the others
// (/api/v1/<module>/manifest.json). Each module has its base URL, an `api` map per model
// (operation → {url, method}) and a `schema` map per model (the JSON Schema of what its
// operations answer). A client builds an operation's address by §7's rule, which each module's
// manifest states in `url_rule` (the router serves exactly that: see its `strict: false`).
import { z } from "zod";
import { API_VERSION, modulePath, type ApiModule, type Operation } from "./operation.ts";

/**
 * §7's URL rule as the server serves it. Clients read it literally (the parameters in place of
 * everything from the first ':', so no trailing slash) or substitute each `:name` (keeping the
 * slash): both forms answer alike.
 */
export const URL_RULE =
  "L'indirizzo di un'operazione è baseurl + '/' + url. In url la parte dal primo ':' in poi si sostituisce " +
  "con i parametri del percorso, nell'ordine dei loro ':nome', ciascuno codificato (encodeURIComponent) e separati da '/'; " +
  "gli altri parametri vanno in una query string. La barra finale è facoltativa: ogni indirizzo risponde allo stesso modo " +
  "con e senza, in GET come in POST.";

export type ModuleManifest = {
  /** The API's version, as in the root manifest: a related manifest read alone still says it. */
  version: typeof API_VERSION;
  code: ApiModule;
  baseurl: string;
  url_rule: string;
  api: Record<string, Record<string, { url: string; method: "GET" | "POST" }>>;
  schema: Record<string, unknown>;
};

/** Loaded at start-up; the others are reached through the root manifest's relations. */
const ROOT_MODULES: readonly ApiModule[] = ["aaa", "order", "media"];

function moduleManifest(code: ApiModule, operations: readonly Operation[], origin: string): ModuleManifest {
  const manifest: ModuleManifest = {
    version: API_VERSION,
    code,
    baseurl: `${origin}${modulePath(code)}`,
    url_rule: URL_RULE,
    api: {},
    schema: {},
  };
  for (const op of operations.filter((o) => o.module === code)) {
    (manifest.api[op.model] ??= {})[op.name] = { url: op.path, method: op.method };
    const schemas = (manifest.schema[op.model] ??= { operations: {} }) as { operations: Record<string, unknown> };
    schemas.operations[op.name] = z.toJSONSchema(op.result, { io: "input", unrepresentable: "any" });
  }
  return manifest;
}

export function buildManifests(operations: readonly Operation[], origin: string) {
  const modules = [...new Set(operations.map((op) => op.module))].filter((m) => m !== "direct");
  const byModule = Object.fromEntries(modules.map((code) => [code, moduleManifest(code, operations, origin)]));
  const root = {
    version: API_VERSION,
    modules: Object.fromEntries(ROOT_MODULES.filter((m) => byModule[m]).map((m) => [m, byModule[m]])),
    relations: modules.filter((m) => !ROOT_MODULES.includes(m)).map((m) => `${origin}/api/${API_VERSION}/${m}/manifest.json`),
  };
  return { root, byModule };
}

/** §7's URL rule with each `:name` part replaced by its parameter (the trailing slash kept), the others as a query string. */
export function operationUrl(baseurl: string, url: string, params: Record<string, string | number> = {}): string {
  const rest = new URLSearchParams();
  const used = new Set<string>();
  const path = url
    .split("/")
    .map((part) => {
      if (!part.startsWith(":")) return part;
      const name = part.slice(1);
      used.add(name);
      if (params[name] === undefined) throw new Error(`missing parameter ${name} for ${url}`);
      return encodeURIComponent(String(params[name]));
    })
    .join("/");
  for (const [name, value] of Object.entries(params)) if (!used.has(name)) rest.set(name, String(value));
  const query = rest.size ? `?${rest}` : "";
  return `${baseurl}/${path}${query}`;
}
