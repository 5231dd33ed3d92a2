// The API's refusals: `{error: {description}}` with an HTTP status (§7). The description is the
// same Italian message the pages show for the same refusal.
export type ApiErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 503;

export class ApiError extends Error {
  override name = "ApiError";
  readonly status: ApiErrorStatus;
  readonly description: string;
  /** A 429's wait, sent as Retry-After so a client knows when to try again without reading the message. */
  readonly retryAfterSeconds: number | undefined;
  constructor(status: 429, description: string, options: { retryAfterSeconds: number });
  constructor(status: Exclude<ApiErrorStatus, 429>, description: string);
  constructor(status: ApiErrorStatus, description: string, options?: { retryAfterSeconds: number }) {
    super(description);
    this.status = status;
    this.description = description;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export const API_MESSAGES = {
  unauthorized: "Accesso richiesto: manca un token valido",
  notFound: "Risorsa non trovata",
  unknownAddress: "Indirizzo sconosciuto: nessuna operazione a questo indirizzo",
  badAddress: "Indirizzo non valido",
  badFilter: "Filtro non valido: usa student=1 oppure legal_professions=1",
  emailOnPortal: "L'email si cambia dalla pagina 'Il mio account' del portale",
  socialLoginOff: "L'accesso con Google non è disponibile",
  noOperation: "Operazione non disponibile",
  invalidJson: "Il corpo della richiesta non è JSON valido",
  notJson: "Il corpo della richiesta deve essere application/json",
  tooLarge: "Il corpo della richiesta è troppo grande",
  internal: "Si è verificato un errore, riprova più tardi",
} as const;
