// The OpenAPI 3.1 document of the JSON API (/api/openapi.json), generated from the operations'
// zod schemas: the same schemas that validate each call.
import { z } from "zod";
import { routeOf, type Operation } from "./operation.ts";
import { API_ERROR_CODES } from "./errors.ts";

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;

/** Express's `:name` parts as OpenAPI's `{name}`. */
export const openApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

function parametersOf(schema: z.ZodType | undefined, where: "path" | "query") {
  if (!schema) return [];
  const object = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (object.required ?? []).includes(name),
    schema: property,
  }));
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

export function buildOpenApiDocument(operations: readonly Operation[], origin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = openApiPath(routeOf(op));
    const responses: Record<string, unknown> = {
      200: {
        description: "Esito",
        content: {
          "application/json": {
            schema: { type: "object", required: ["result"], properties: { result: jsonSchema(op.result, "output") } },
          },
        },
      },
      400: errorResponse("Dati non validi"),
      429: {
        ...errorResponse("Troppi tentativi"),
        headers: {
          "Retry-After": { description: "Secondi da attendere prima di riprovare", schema: { type: "integer", minimum: 1 } },
        },
      },
    };
    if (op.method === "POST") responses[413] = errorResponse("Corpo della richiesta troppo grande");
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
      responses[404] = errorResponse("Non trovato, o non del cliente");
      responses[409] = errorResponse("Non possibile nello stato attuale");
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
        "Le API del portale clienti (spec §7). Risposte {result} oppure {error: {description}}. " +
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
