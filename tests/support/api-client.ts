// A client of the JSON API as the publisher's app would be one: it signs in through the portal's
// identity provider with code + PKCE (the login page's form included), loads the manifest and its
// relations, and calls operations by module, model and name, building each address by §7's rule.
import { createHash, randomBytes } from "node:crypto";
import { operationUrl, type ModuleManifest } from "#server/api/manifest.ts";
import { createCookieJar } from "./cookie-jar.ts";

const APP_REDIRECT_URI = "http://127.0.0.1/oauth/callback";

export type AppTokens = { access_token: string; refresh_token: string; expires_in: number; scope: string };

/** The app's sign-in: authorization request, the portal's login form, the code exchanged with its verifier. */
export async function signInApp(origin: string, { email, password }: { email: string; password: string }): Promise<AppTokens> {
  const jar = createCookieJar();
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: "novalex-app",
    response_type: "code",
    scope: "openid offline_access api",
    redirect_uri: APP_REDIRECT_URI,
    state: randomBytes(8).toString("hex"),
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
  const go = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(new URL(url, origin), {
      redirect: "manual",
      ...init,
      headers: { cookie: jar.header(), ...init.headers },
    });
    jar.store(response);
    return response;
  };
  let response = await go(`/oidc/auth?${query}`);
  let location = response.headers.get("location") ?? "";
  if (!/\/accedi\//.test(location)) throw new Error(`no login interaction: ${response.status} ${location}`);
  response = await go(location, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ email, password }),
  });
  location = response.headers.get("location") ?? "";
  if (!location) throw new Error(`the login form answered ${response.status}: ${(await response.text()).slice(0, 3000)}`);
  for (let hops = 0; hops < 8 && location && !location.startsWith(APP_REDIRECT_URI); hops++) {
    response = await go(location);
    location = response.headers.get("location") ?? "";
  }
  if (!location.startsWith(APP_REDIRECT_URI)) {
    throw new Error(`the provider did not come back to the app: ${response.status} ${(await response.text()).slice(0, 500)}`);
  }
  const callback = new URL(location);
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`no code: ${location}`);
  const token = await fetch(new URL("/oidc/token", origin), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: "novalex-app",
      code,
      code_verifier: verifier,
      redirect_uri: APP_REDIRECT_URI,
    }),
  });
  if (token.status !== 200) throw new Error(`token exchange: ${token.status} ${await token.text()}`);
  return (await token.json()) as AppTokens;
}

export type ApiAnswer = {
  status: number;
  body: { result?: unknown; error?: { description: string } } | null;
  response: Response;
};

export async function loadManifests(origin: string): Promise<Record<string, ModuleManifest>> {
  const root = (await (await fetch(new URL("/api/manifest.json", origin))).json()) as {
    modules: Record<string, ModuleManifest>;
    relations: string[];
  };
  const modules = { ...root.modules };
  for (const relation of root.relations) {
    const manifest = (await (await fetch(relation)).json()) as ModuleManifest;
    modules[manifest.code] = manifest;
  }
  return modules;
}

/** Calls operations through the manifests, with a bearer token when given one. */
export function apiClient(modules: Record<string, ModuleManifest>, token?: string) {
  return async function call(
    module: string,
    model: string,
    name: string,
    { params, body, token: override }: { params?: Record<string, string | number>; body?: unknown; token?: string | null } = {},
  ): Promise<ApiAnswer> {
    const manifest = modules[module];
    const entry = manifest?.api[model]?.[name];
    if (!manifest || !entry) throw new Error(`no operation ${module}.${model}.${name} in the manifest`);
    const bearer = override === undefined ? token : override;
    const response = await fetch(operationUrl(manifest.baseurl, entry.url, params), {
      method: entry.method,
      redirect: "manual",
      headers: {
        "content-type": "application/json",
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      ...(entry.method === "POST" && body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const parsed = text && response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null;
    return { status: response.status, body: parsed, response };
  };
}
