// An operation of the publisher's JSON API (spec §7): where it answers, who may call it, and the
// zod schemas of what it takes and gives. The router, the manifest and the OpenAPI document are
// all built from the same list of operations (server/api/operations/index.ts), so they cannot
// disagree.
import { z } from "zod";
import type { Config } from "#server/config.ts";
import type { ApiCaller } from "#server/identity/access-tokens.ts";
import type { Logger } from "#server/logger.ts";
import type { Services } from "#server/services.ts";

/** The modules of §7. `direct` holds the calls a client makes without the manifest (§7, "Direct calls"). */
export type ApiModule = "aaa" | "pim" | "ecommerce" | "order" | "reader" | "media" | "direct";

export type OperationContext<Params, Query, Body, Caller extends ApiCaller | null = ApiCaller | null> = {
  params: Params;
  query: Query;
  body: Body;
  /** The customer a bearer token proved: always there for a customer operation, null for a public one. */
  caller: Caller;
  ip: string;
  services: Services;
  config: Config;
  log: Logger;
};

/** What a customer operation's handler is given: the router refused the call that proved no caller. */
export type CustomerContext<Params = unknown, Query = unknown, Body = unknown> = OperationContext<Params, Query, Body, ApiCaller>;

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export type Operation<
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R extends Schema = Schema,
> = {
  module: ApiModule;
  /** The model of the manifest's maps (§3: e.g. `order`, `session`, `resource`). */
  model: string;
  /** The operation's name in the manifest (§7: e.g. `order_verify_codiceattivazione`). */
  name: string;
  method: "GET" | "POST";
  /** Below the module's base URL; a part starting with ':' is a path parameter (§7's URL rule). */
  path: string;
  summary: string;
  /** `public`: anyone; `customer`: a bearer token of a signed-in customer. */
  auth: "public" | "customer";
  params?: P;
  query?: Q;
  body?: B;
  result: R;
  /**
   * The statuses the handler itself answers besides 200 (e.g. 404 for another's object, 409, 429):
   * the OpenAPI document lists them beside the router's own (400, 401, 405, 413, 415).
   */
  refusals?: readonly RefusalStatus[];
  /** The result is an address the call is sent on to (302), not a JSON answer. */
  redirect?: boolean;
  /**
   * The result is one page of a longer list (see `pagedCustomerOperation`): the handler answers
   * `{page, total}`, the client gets `{result: page}` and the total in `X-Total-Count`.
   */
  paged?: boolean;
  /**
   * The answer is reference data, the same for everyone (the profile forms' lists, the product
   * types): anyone may cache it for a few minutes and revalidate it by its ETag. Others are `no-store`.
   */
  publicCache?: boolean;
  handle(context: OperationContext<Out<P>, Out<Q>, Out<B>>): Promise<z.input<R>>;
};

/** The statuses an operation's handler may answer with an error of its own. */
export type RefusalStatus = 403 | 404 | 409 | 429 | 503;

/**
 * An object schema that refuses the fields it does not name: zod would drop them, and a client's
 * misspelt or unsupported field would pass as if it had been taken.
 */
function strict<S extends Schema | undefined>(schema: S): S {
  if (!(schema instanceof z.ZodObject)) return schema;
  // Already strict: kept as it is, with the metadata its document carries (a copy would lose it).
  if (schema._zod.def.catchall instanceof z.ZodNever) return schema;
  return schema.strict() as unknown as S;
}

/** The query of an operation that takes none: any parameter is refused, not ignored. */
const NO_QUERY = z.strictObject({});

/** The header that tells a paged list's full length (a common name; CORS exposes it). */
export const TOTAL_COUNT_HEADER = "X-Total-Count";

/** What a paged operation's handler answers: the page the client asked for, and how many the whole list holds. */
export type PageAnswer<T> = { page: T; total: number };

type Auth = Operation["auth"];
/** Who a handler is told calls: the customer its bearer token proved, or nobody in particular. */
type CallerOf<A extends Auth> = A extends "customer" ? ApiCaller : null;

/** An operation as its module declares it: the module and who may call it come from the helper that declares it. */
type Declaration<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Schema,
  A extends Auth,
> = Omit<Operation<P, Q, B, R>, "module" | "auth" | "paged" | "handle"> & {
  handle(context: OperationContext<Out<P>, Out<Q>, Out<B>, CallerOf<A>>): Promise<z.input<R>>;
};

/** A customer's list, one page at a time: its query takes `limit` and `offset` (see `listPage`). */
type PagedDeclaration<P extends Schema | undefined, Q extends Schema | undefined, R extends z.ZodArray> = Omit<
  Declaration<P, Q, undefined, R, "customer">,
  "handle" | "body" | "redirect"
> & {
  handle(context: CustomerContext<Out<P>, Out<Q>, undefined>): Promise<PageAnswer<z.input<R>>>;
};

/**
 * An operation as the router, the manifests and the OpenAPI document see it. Its query and body
 * objects are made strict here, so all of them see the schema that is enforced.
 */
function declared(module: ApiModule, auth: Auth, op: { query?: Schema; body?: Schema; paged?: boolean }): Operation {
  return { module, auth, ...op, query: strict(op.query) ?? NO_QUERY, body: strict(op.body) } as Operation;
}

/** Declares a module's operations that `auth` lets call; their schemas type their handler. */
const declarer =
  <A extends Auth>(module: ApiModule, auth: A) =>
  <P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined, R extends Schema>(
    op: Declaration<P, Q, B, R, A>,
  ) =>
    declared(module, auth, op);

/**
 * Declares the operations of one module (§7), which it names once. Who may call an operation is
 * the helper that declares it: a customer operation's handler is given the caller its bearer
 * token proved (the router refuses a call without one), a public one's none.
 */
export function operationsOf(module: ApiModule) {
  return {
    publicOperation: declarer(module, "public"),
    customerOperation: declarer(module, "customer"),
    /**
     * The customer's list, one page at a time: its handler answers the page and the total, which
     * the client gets in `X-Total-Count`.
     */
    pagedCustomerOperation: <P extends Schema | undefined, Q extends Schema | undefined, R extends z.ZodArray>(
      op: PagedDeclaration<P, Q, R>,
    ) => declared(module, "customer", { ...op, paged: true }),
  };
}

/** The version of the API in every manifest-driven path. */
export const API_VERSION = "v1";

/** Where a module's operations live, below the portal's origin. */
export function modulePath(module: ApiModule): string {
  return module === "direct" ? "/api" : `/api/${API_VERSION}/${module}`;
}

/** The operation's Express route, e.g. /api/v1/order/order/verify_codiceattivazione/:code/. */
export function routeOf(op: Operation): string {
  return `${modulePath(op.module)}/${op.path}`;
}
