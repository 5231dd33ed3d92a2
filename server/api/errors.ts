// The API's refusals: `{error: {code, field?, description}}` with an HTTP status (§7). The
// description is the same Italian message the pages show for the same refusal; the code is for
// programs, which must not parse Italian; the field names the input at fault, when one is.
import type { z } from "zod";
import { fieldName, pathOf, WHOLE_INPUT_MESSAGES } from "#server/lib/italian-issues.ts";
import type { Refusal } from "#shared/refusals.ts";

export type ApiErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 503;

/** Every code an error may carry (published as the OpenAPI error schema's enum): a client's switch is exhaustive. */
export const API_ERROR_CODES = [
  "invalid_field",
  "invalid_request",
  "invalid_json",
  "bad_address",
  "unauthorized",
  "forbidden",
  "not_found",
  "unknown_address",
  "method_not_allowed",
  "conflict",
  "body_too_large",
  "unsupported_media_type",
  "rate_limited",
  "unavailable",
  "server_error",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The code of a status when nothing more precise is said: one place, so no refusal goes without. */
const CODE_OF_STATUS: Record<ApiErrorStatus, ApiErrorCode> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "body_too_large",
  415: "unsupported_media_type",
  422: "invalid_request",
  429: "rate_limited",
  503: "unavailable",
};

type ApiErrorOptions = { code?: ApiErrorCode; field?: string };

export class ApiError extends Error {
  override name = "ApiError";
  readonly status: ApiErrorStatus;
  readonly code: ApiErrorCode;
  readonly description: string;
  /** The input at fault (a dotted path, e.g. `ids[0]`), when one is. */
  readonly field: string | undefined;
  /** A 429's wait, sent as Retry-After so a client knows when to try again without reading the message. */
  readonly retryAfterSeconds: number | undefined;
  constructor(status: 429, description: string, options: ApiErrorOptions & { retryAfterSeconds: number });
  constructor(status: Exclude<ApiErrorStatus, 429>, description: string, options?: ApiErrorOptions);
  constructor(status: ApiErrorStatus, description: string, options?: ApiErrorOptions & { retryAfterSeconds?: number }) {
    super(description);
    this.status = status;
    this.description = description;
    this.code = options?.code ?? (options?.field !== undefined ? "invalid_field" : CODE_OF_STATUS[status]);
    this.field = options?.field;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** The answer's body, the same shape whoever refuses (the router, the host's body limit). */
  toJSON() {
    return { error: { code: this.code, ...(this.field !== undefined && { field: this.field }), description: this.description } };
  }
}

/** A use-case's refusal (shared/refusals.ts) as the API's answer: the page's message, the agreed status. */
export function refused(refusal: Refusal, retryAfterSeconds?: number): ApiError {
  const options = refusal.field === undefined ? {} : { field: refusal.field };
  if (refusal.status === 429)
    return new ApiError(429, refusal.message, { ...options, retryAfterSeconds: retryAfterSeconds ?? 60 });
  return new ApiError(refusal.status, refusal.message, options);
}

export const API_MESSAGES = {
  unauthorized: "Accesso richiesto: manca un token valido",
  notFound: "Risorsa non trovata",
  unknownAddress: "Indirizzo sconosciuto: nessuna operazione a questo indirizzo",
  badAddress: "Indirizzo non valido",
  badEscape: "Indirizzo non valido: contiene una sequenza '%' che non codifica un carattere",
  badFilter: "Filtro non valido: usa student=1 oppure legal_professions=1",
  emailOnPortal: "L'email si cambia dalla pagina 'Il mio account' del portale",
  socialLoginOff: "L'accesso con Google non è disponibile",
  noOperation: "Operazione non disponibile",
  invalidJson: "Il corpo della richiesta non è JSON valido",
  notJson: "Il corpo della richiesta deve essere application/json",
  notObject: WHOLE_INPUT_MESSAGES.notObject,
  invalidRequest: WHOLE_INPUT_MESSAGES.invalid,
  oneId: "Il corpo della richiesta deve essere un elenco con un solo id",
  tooLarge: "Il corpo della richiesta è troppo grande",
  internal: "Si è verificato un errore, riprova più tardi",
} as const;

/** A failed parse as the API's 400: the first issue's message, the field it names, `invalid_field`. */
export function invalidInput(error: z.ZodError): ApiError {
  const [issue] = error.issues;
  const path = issue ? pathOf(issue) : [];
  if (!issue || path.length === 0) return new ApiError(400, issue?.message ?? API_MESSAGES.invalidRequest);
  return new ApiError(400, issue.message, { field: fieldName(path) });
}
