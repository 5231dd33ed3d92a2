// The typed entries of the React Router context. Loaders and actions read the back-end
// services from here, never by importing a database client. Both sides use this module: the
// server only for its types (it imports nothing from server/ but types).
//
// The keys belong to the app build: the server takes them from the loaded build's server
// entry (which re-exports them), because a copy imported on the server's side would be a
// different key object and every `context.get` would miss.
import { createContext } from "react-router";
import type { Config } from "#server/config.ts";
import type { Logger } from "#server/logger.ts";
import type { Services } from "#server/services.ts";

export const servicesContext = createContext<Services>();

export type RequestInfo = {
  /** Echoed in the X-Request-Id header and in every log line of the request. */
  id: string;
  /** CSP nonce for this response's inline scripts. */
  nonce: string;
  /** The client's address: X-Forwarded-For only from the proxies TRUST_PROXY names (server/security/client-address.ts). */
  ip: string;
  log: Logger;
  /**
   * Whether the answer is an HTML document rendered by the server (false for the data requests
   * of client-side navigations and revalidations, `*.data`).
   */
  document: boolean;
};
export const requestContext = createContext<RequestInfo>();

/** What the pages may know about configuration: public links, never secrets. */
export type PublicSettings = {
  links: Config["links"];
  salesEmail: string;
  isProduction: boolean;
  /** The address customers use (links in e-mails point here). */
  publicOrigin: string;
  /** The storefront's customer logout page, opened in a new tab at sign-out. */
  storefrontLogoutUrl: string;
  /** Whether the social login link is shown. */
  socialLogin: boolean;
  /** The publisher as the footer and receipts name it. */
  seller: { name: string; vat: string };
};

export const settingsContext = createContext<PublicSettings>();

export type ContextKeys = {
  servicesContext: typeof servicesContext;
  requestContext: typeof requestContext;
  settingsContext: typeof settingsContext;
};
