// Every form post passes here before its action: a body that is not a form (JSON, text, no
// content type), that cannot be parsed, that carries a file (no form of the portal takes one) or
// a NUL character in a field's name (PostgreSQL refuses it in text) is the client's fault. It is
// answered 4xx with the Italian error page, logged at warn, and reaches no action, so nothing is
// written. A NUL in a value is the field's own error, shown beside it (form-reply.server.ts).
import { data, type MiddlewareFunction } from "react-router";
import { requestContext } from "#shared/context.ts";

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);
const READ_ONLY_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

type Refusal = { status: 400 | 415; reason: string };

/** Why this request's body is not an acceptable form, or null when it is one. */
async function formRefusal(request: Request): Promise<Refusal | null> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!FORM_TYPES.has(type)) return { status: 415, reason: `content type "${type.slice(0, 80)}" is not a form` };
  let form: FormData;
  try {
    // A clone: the action reads the body again.
    form = await request.clone().formData();
  } catch {
    return { status: 400, reason: "unreadable form body" };
  }
  for (const [name, value] of form) {
    if (typeof value !== "string") return { status: 400, reason: "file in a form" };
    if (name.includes("\0")) return { status: 400, reason: "NUL character in a field name" };
  }
  return null;
}

export const formGuardMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  if (READ_ONLY_METHODS.has(request.method)) return next();
  const refusal = await formRefusal(request);
  if (!refusal) return next();
  context.get(requestContext).log.warn({ reason: refusal.reason }, "malformed form post refused");
  throw data(null, { status: refusal.status });
};
