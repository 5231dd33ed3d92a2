// How the portal authenticates to its identity provider's token endpoint: HTTP Basic with the
// client id and secret, each form-urlencoded first (RFC 6749 §2.3.1), since the provider decodes
// them: sent as they are, a secret with "+" would arrive with a space.

/** application/x-www-form-urlencoded, as for a form field's value (space as "+", "+" as %2B). */
export const formEncoded = (value: string) => new URLSearchParams({ v: value }).toString().slice("v=".length);

/** The Authorization header the portal sends to the token endpoint. */
export const basicAuthorization = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${formEncoded(clientId)}:${formEncoded(secret)}`).toString("base64")}`;
