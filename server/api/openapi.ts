// The OpenAPI 3.1 document of the JSON API (/api/openapi.json), generated from the operations'
// zod schemas: the same schemas that validate each call.
import { z } from "zod";
import { routeOf, TOTAL_COUNT_HEADER, type Operation, type RefusalStatus } from "./operation.ts";
import { API_ERROR_CODES } from "./errors.ts";

/** A schema as it sits inside the document: without its own `$schema`, since OpenAPI 3.1 already says the dialect. */
function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  const { $schema: _dialect, ...nested } = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
  return nested as Record<string, unknown>;
}

/** Express's `:name` parts as OpenAPI's `{name}`. */
export const openApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

function parametersOf(schema: z.ZodType | undefined, where: "path" | "query") {
  if (!schema) return [];
  const object = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    // A parameter's own description, where its schema has one, as readers of the document look for it.
    ...(typeof (property as { description?: unknown }).description === "string" && {
      description: (property as { description: string }).description,
    }),
    required: where === "path" || (object.required ?? []).includes(name),
    schema: property,
  }));
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** The errors an operation's handler answers itself (its `refusals`). */
function refusalResponse(status: RefusalStatus) {
  switch (status) {
    case 403:
      return errorResponse("Non consentito");
    case 404:
      return errorResponse("Non trovato, o non del cliente");
    case 409:
      return errorResponse("Non possibile nello stato attuale");
    case 429:
      return {
        ...errorResponse("Troppi tentativi"),
        headers: {
          "Retry-After": { description: "Secondi da attendere prima di riprovare", schema: { type: "integer", minimum: 1 } },
        },
      };
    case 503:
      return errorResponse("Servizio momentaneamente non disponibile");
  }
}

export function buildOpenApiDocument(operations: readonly Operation[], origin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = openApiPath(routeOf(op));
    const responses: Record<string, unknown> = {
      ...(op.redirect
        ? {
            302: {
              description: "Rinvio alla risorsa",
              headers: { Location: { description: "L'indirizzo della risorsa", required: true, schema: { type: "string" } } },
            },
          }
        : {
            200: {
              description: "Esito",
              ...(op.paged && {
                headers: {
                  [TOTAL_COUNT_HEADER]: {
                    description: "Quanti elementi ha la lista intera (le pagine si chiedono con limit e offset)",
                    required: true,
                    schema: { type: "integer", minimum: 0 },
                  },
                },
              }),
              content: {
                "application/json": {
                  schema: { type: "object", required: ["result"], properties: { result: jsonSchema(op.result, "output") } },
                },
              },
            },
          }),
      // Every operation checks its input: at least its query, where unknown parameters are refused.
      400: errorResponse("Dati non validi"),
      // Its address answers any other method so.
      405: errorResponse("Metodo non previsto per questo indirizzo"),
    };
    if (op.method === "POST") {
      responses[413] = errorResponse("Corpo della richiesta troppo grande");
      responses[415] = errorResponse("Corpo non in JSON");
    }
    if (op.auth === "customer") {
      responses[401] = {
        ...errorResponse("Token mancante, scaduto o revocato"),
        headers: {
          "WWW-Authenticate": {
            description:
              'Senza token `Bearer realm="api"`; con un token non valido (scaduto, revocato) `Bearer realm="api", error="invalid_token"`: rinnovarlo col refresh token',
            schema: { type: "string" },
          },
        },
      };
    }
    for (const status of op.refusals ?? []) responses[status] = refusalResponse(status);
    if (op.params) {
      // An empty parameter ('…/download//') or a dot segment that the client's URL parser folds away
      // ('…/verify_codiceattivazione/./') leaves an address no operation has: the router's 404.
      const unknownAddress = "indirizzo sconosciuto (un parametro del percorso vuoto, o '.' o '..')";
      responses[404] = errorResponse(
        responses[404] ? `Non trovato, o non del cliente; oppure ${unknownAddress}` : `L'${unknownAddress}`,
      );
    }
    (paths[path] ??= {})[op.method.toLowerCase()] = {
      operationId: `${op.module}.${op.model}.${op.name}`,
      tags: [op.module],
      summary: op.summary,
      parameters: [...parametersOf(op.params, "path"), ...parametersOf(op.query, "query")],
      ...(op.body
        ? { requestBody: { required: false, content: { "application/json": { schema: jsonSchema(op.body, "input") } } } }
        : {}),
      ...(op.auth === "customer" ? { security: [{ portal: ["api"] }] } : { security: [] }),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Novalex Editore: servizi per i clienti",
      version: "1.0.0",
      description:
        "Le API del portale clienti (spec §7). Risposte {result} oppure {error: {code, field?, description}}. " +
        "Le operazioni del cliente vogliono un token di accesso del provider d'identità del portale (code + PKCE, scope `api`). " +
        "Ogni percorso qui scritto con la barra finale risponde allo stesso modo anche senza (GET e POST).",
    },
    servers: [{ url: origin }],
    paths,
    components: {
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["code", "description"],
              properties: {
                code: {
                  type: "string",
                  enum: [...API_ERROR_CODES],
                  description: "Stabile, per i programmi: la descrizione è per le persone e può cambiare",
                },
                field: { type: "string", description: "Il campo in errore (es. `firstname`, `ids[0]`), quando è uno" },
                description: { type: "string", description: "Il messaggio in italiano, lo stesso delle pagine" },
              },
            },
          },
        },
      },
      securitySchemes: {
        portal: {
          type: "oauth2",
          description: "Token JWT per l'API (audience `" + `${origin}/api` + "`), dal flusso code + PKCE.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${origin}/oidc/auth`,
              tokenUrl: `${origin}/oidc/token`,
              refreshUrl: `${origin}/oidc/token`,
              scopes: { api: "Le operazioni del cliente" },
            },
          },
        },
      },
    },
  };
}
