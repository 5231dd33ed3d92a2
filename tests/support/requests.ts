// Requests as a browser sends them to route actions: form posts with cookies.
import { createCookie } from "react-router";

export function formPost(url: string, fields: Record<string, string>, cookie?: string): Request {
  return new Request(new URL(url, "http://localhost:3000"), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields),
  });
}

/** The Cookie header of a signed-in browser (see server/identity/relying-party.ts). */
export async function sessionCookieHeader(rawSessionId: string): Promise<string> {
  const serialized = await createCookie("portal_session").serialize(rawSessionId);
  return serialized.split(";")[0]!;
}

/** The Response a loader or action throws (a redirect, a 404); fails when nothing is thrown. */
export async function thrownResponse(promise: Promise<unknown>): Promise<Response> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Response) return error;
    throw error;
  }
  throw new Error("expected a thrown Response");
}

/** The toast a redirect carries to the next page (read as the next request would). */
export async function toastOf(flash: { read(request: Request): Promise<unknown> }, response: Response) {
  const cookies = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return flash.read(new Request("http://localhost:3000/", { headers: { cookie: cookies } }));
}
