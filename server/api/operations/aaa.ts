// aaa: the accounts' operations (spec §7): registration and password links (public, the
// direct calls included), and the signed-in customer's own account.
import { z } from "zod";
import { accountFields } from "#shared/account-rules.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { PASSWORD_CHANGE_REFUSALS, PROFILE_SAVE_REFUSALS, profileSaveRefusal } from "#shared/profile-messages.ts";
import { PROFILE_LIMITS } from "#shared/profile-limits.ts";
import { withRetryAfter } from "#shared/refusals.ts";
import { safeRedirectTarget } from "#shared/safe-redirect.ts";
import { normalizeEmail } from "#server/accounts/service.ts";
import { API_MESSAGES, ApiError, refused } from "#server/api/errors.ts";
import { operationsOf, type CustomerContext } from "#server/api/operation.ts";
import { idList, millis, toMillis, uuid } from "./fields.ts";
import { HOME_PATH, LOGIN_PATH } from "#shared/links.ts";

const { publicOperation, customerOperation } = operationsOf("aaa");
/** §7's direct calls: public, and outside the manifests. */
const { publicOperation: directCall } = operationsOf("direct");

const userSchema = z.object({
  uuid: z.string(),
  username: z.string().nullable(),
  firstname: z.string().nullable(),
  lastname: z.string().nullable(),
  email: z.string().nullable(),
  mobile: z.string().nullable(),
  professione: z.string().nullable(),
  universita: z.string().nullable(),
  corsolaurea: z.string().nullable(),
  materia: z.string().nullable(),
  interessi: z.array(z.string()),
  accept_marketing: z.boolean(),
  accept_customize: z.boolean(),
  has_edu_upto: millis,
});

/** The caller's account as §3 names its fields. */
async function userOf({ services, caller }: CustomerContext) {
  const [profile, edu] = await Promise.all([
    services.profiles.get(caller.userId),
    // EDU runs until then (null: it does not run now).
    services.library.dashboard.eduState(caller.userId),
  ]);
  // The token was checked against an active account; one deleted since is refused like it.
  if (!profile) throw new ApiError(401, MESSAGES.accountNotFound);
  return {
    uuid: profile.id,
    username: profile.email,
    firstname: profile.firstname,
    lastname: profile.lastname,
    email: profile.email,
    mobile: profile.mobile,
    professione: profile.professionId,
    universita: profile.universityId,
    corsolaurea: profile.degreeCourseId,
    materia: profile.subjectId,
    interessi: profile.interestIds,
    accept_marketing: profile.acceptMarketing,
    accept_customize: profile.acceptCustomize,
    has_edu_upto: toMillis(edu.until),
  };
}

const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, `${MESSAGES.tooManyRequests}. ${MESSAGES.retryAfter(retryAfterSeconds)}`, { retryAfterSeconds });

const resetBody = z.object({
  token: z.string().min(1, MESSAGES.passwordNotSetText).max(200, MESSAGES.passwordNotSetText),
  password: accountFields.password,
});
const tokenBody = z.object({ token: z.string().max(200) });

/** The caller's own account, named by `uuid` in the body: another's is not found. */
async function ownAccount({ body, caller, services }: CustomerContext<unknown, unknown, { uuid: string }>) {
  if (body.uuid !== caller.userId) throw new ApiError(404, API_MESSAGES.notFound);
  const profile = await services.profiles.get(caller.userId);
  // The token was checked against an active account; one deleted since is refused like it.
  if (!profile) throw refused(PROFILE_SAVE_REFUSALS.not_found);
  return profile;
}

/** A field of 'save': absent or null keeps what is stored; "" empties it (refused where required). */
const kept = (max: number, message: string) =>
  z
    .string()
    .max(max, message)
    .nullish()
    .transform((v) => v ?? undefined);

/** The sign-in's lock, as the password change page says it. */
const currentPasswordLocked = (retryAfterSeconds: number) =>
  refused(withRetryAfter(PASSWORD_CHANGE_REFUSALS.locked, retryAfterSeconds), retryAfterSeconds);

export const aaaOperations = [
  directCall({
    model: "user",
    name: "register",
    method: "POST",
    path: "user/register/",
    refusals: [409, 429],
    summary: "Registra un nuovo cliente (username = email).",
    body: z.object({
      username: accountFields.email,
      password: accountFields.password,
      firstname: accountFields.firstname,
      lastname: accountFields.lastname,
      client_id: z.string().max(100),
    }),
    result: z.literal(true),
    async handle({ body, services, config, ip }) {
      if (![config.oidc.clientId, config.oidc.appClient.clientId].includes(body.client_id)) {
        throw new ApiError(400, MESSAGES.fieldInvalid, { field: "client_id" });
      }
      const result = await services.registration.register(
        { email: body.username, password: body.password, firstname: body.firstname, lastname: body.lastname },
        { ip },
      );
      if (result.ok) return true as const;
      if (result.reason === "rate_limited") throw rateLimited(result.retryAfterSeconds);
      throw new ApiError(409, MESSAGES.emailTaken);
    },
  }),
  ...(["reset", "migrated"] as const).map((purpose) =>
    directCall({
      model: purpose === "reset" ? "passwordreset" : "passwordresetfrommagento",
      name: "reset",
      method: "POST",
      path: purpose === "reset" ? "passwordreset/reset/" : "passwordresetfrommagento/reset/",
      summary:
        purpose === "reset"
          ? "Imposta la nuova password con il link ricevuto per email."
          : "Imposta la password di un account del vecchio negozio; risponde con l'indirizzo dove andare.",
      body: resetBody,
      result: purpose === "reset" ? z.literal(true) : z.url(),
      refusals: [429],
      async handle({ body, services, config, ip }) {
        const result = await services.passwordLinks.reset({ token: body.token, purpose, password: body.password, ip });
        if (result.ok) return purpose === "reset" ? (true as const) : `${config.publicOrigin}${LOGIN_PATH}`;
        if (result.reason === "rate_limited") throw rateLimited(result.retryAfterSeconds);
        throw new ApiError(400, MESSAGES.passwordNotSetText);
      },
    }),
  ),
  publicOperation({
    model: "passwordreset",
    name: "request",
    method: "POST",
    path: "passwordreset/request/",
    summary: "Invia il link per reimpostare la password all'indirizzo dell'account.",
    body: z.object({ username: accountFields.email }),
    refusals: [404, 429, 503],
    result: z.literal(true),
    async handle({ body, services, ip }) {
      const result = await services.passwordLinks.requestReset({ email: body.username, ip });
      if (result.ok) return true as const;
      if (result.reason === "rate_limited") throw rateLimited(result.retryAfterSeconds);
      if (result.reason === "unknown_email") throw new ApiError(404, MESSAGES.emailNotFound);
      throw new ApiError(503, MESSAGES.communicationErrorText);
    },
  }),
  ...(["reset", "migrated"] as const).map((purpose) =>
    publicOperation({
      model: purpose === "reset" ? "passwordreset" : "passwordresetfrommagento",
      name: "verify",
      method: "POST",
      path: purpose === "reset" ? "passwordreset/verify/" : "passwordresetfrommagento/verify/",
      summary: "Se il link per la password si può ancora usare.",
      body: tokenBody,
      result: z.boolean(),
      handle: ({ body, services }) => services.passwordLinks.isUsable(body.token, purpose),
    }),
  ),
  customerOperation({
    model: "session",
    name: "tokeninfo",
    method: "GET",
    path: "session/tokeninfo/",
    summary: "Il cliente del token.",
    result: z.object({ user: userSchema }),
    async handle(context) {
      return { user: await userOf(context) };
    },
  }),
  customerOperation({
    model: "user",
    name: "load",
    method: "POST",
    path: "user/load/",
    summary: "L'account del cliente (solo il proprio).",
    body: idList,
    result: z.array(userSchema),
    async handle(context) {
      if (!context.body.includes(context.caller.userId)) return [];
      return [await userOf(context)];
    },
  }),
  customerOperation({
    model: "user",
    name: "save",
    method: "POST",
    path: "user/save/",
    refusals: [404],
    summary:
      "Salva i campi cambiati dell'account (come la pagina 'Il mio account': la professione non cambia più, i percorsi restano completi); l'email si cambia dal portale.",
    body: z.object({
      uuid,
      // The page's limits and the page's address rule.
      firstname: kept(PROFILE_LIMITS.name, MESSAGES.fieldTooLong),
      lastname: kept(PROFILE_LIMITS.name, MESSAGES.fieldTooLong),
      email: accountFields.email.nullish().transform((v) => v ?? undefined),
      mobile: kept(40, MESSAGES.mobileInvalid),
      professione: kept(64, MESSAGES.invalidChoice),
      universita: kept(64, MESSAGES.invalidChoice),
      corsolaurea: kept(64, MESSAGES.invalidChoice),
      materia: kept(64, MESSAGES.invalidChoice),
      interessi: z
        .array(z.string().max(64, MESSAGES.invalidChoice), { error: MESSAGES.invalidChoice })
        .max(100, MESSAGES.invalidChoice)
        .nullish()
        .transform((v) => v ?? undefined),
      accept_marketing: z.boolean({ error: MESSAGES.invalidChoice }).nullish(),
      // A client may send back the account as it loaded it: these read-only fields are taken and
      // left as they are (the address changes on the portal, the rest is not the client's to set).
      username: z.unknown().optional(),
      accept_customize: z.unknown().optional(),
      has_edu_upto: z.unknown().optional(),
    }),
    result: userSchema,
    async handle(context) {
      const { body, services } = context;
      const profile = await ownAccount(context);
      const { id } = profile;
      // A new address is confirmed by a link and needs the current password: the portal's page does that.
      if (body.email !== undefined && normalizeEmail(body.email) !== profile.email) {
        throw new ApiError(400, API_MESSAGES.emailOnPortal, { field: "email" });
      }
      const result = await services.profiles.update(id, {
        firstname: body.firstname,
        lastname: body.lastname,
        mobile: body.mobile,
        professionId: body.professione,
        universityId: body.universita,
        degreeCourseId: body.corsolaurea,
        subjectId: body.materia,
        interestIds: body.interessi,
      });
      if (!result.ok) throw refused(profileSaveRefusal(result));
      if (typeof body.accept_marketing === "boolean") {
        await services.profiles.updatePreferences(id, { acceptMarketing: body.accept_marketing });
      }
      return userOf(context);
    },
  }),
  customerOperation({
    model: "user",
    name: "verifypassword",
    method: "POST",
    path: "user/verifypassword/",
    refusals: [404, 429],
    summary: "Se la password è quella dell'account (con i limiti dell'accesso: troppi errori la bloccano).",
    body: z.object({ uuid, password: z.string().max(200, MESSAGES.currentPasswordWrong) }),
    result: z.boolean(),
    async handle(context) {
      const user = await ownAccount(context);
      const checked = await context.services.passwordChanges.verify({ user, password: context.body.password, ip: context.ip });
      if (!checked.ok) throw currentPasswordLocked(checked.retryAfterSeconds);
      return checked.matches;
    },
  }),
  customerOperation({
    model: "user",
    name: "changepassword",
    method: "POST",
    path: "user/changepassword/",
    refusals: [404, 429],
    summary:
      "Cambia la password: con quella attuale (currentpassword) e la nuova (password). Dopo il cambio resta collegata solo l'app che l'ha chiesto: le altre sessioni finiscono.",
    body: z.object({
      uuid,
      currentpassword: z.string().min(1, MESSAGES.currentPasswordRequired).max(200, MESSAGES.currentPasswordWrong),
      password: accountFields.password,
    }),
    result: z.literal(true),
    async handle(context) {
      const { body, caller, services, ip } = context;
      const user = await ownAccount(context);
      const result = await services.passwordChanges.change({
        user,
        keep: { grantId: caller.grantId },
        currentPassword: body.currentpassword,
        newPassword: body.password,
        ip,
      });
      if (result.ok) return true as const;
      if (result.reason === "locked") throw currentPasswordLocked(result.retryAfterSeconds);
      throw refused(PASSWORD_CHANGE_REFUSALS[result.reason]);
    },
  }),
  publicOperation({
    model: "session",
    name: "google-loginlink",
    method: "POST",
    path: "session/google-loginlink/",
    refusals: [404],
    summary:
      "L'indirizzo che avvia l'accesso con Google sul portale; al ritorno il cliente va a `url` (un indirizzo del portale, altrimenti alla home).",
    body: z.object({ url: z.string().max(2000) }),
    result: z.url(),
    async handle({ body, services, config }) {
      if (!services.socialLogin.enabled) throw new ApiError(404, API_MESSAGES.socialLoginOff);
      let target = HOME_PATH;
      try {
        const url = new URL(body.url, config.publicOrigin);
        if (url.origin === config.publicOrigin) target = safeRedirectTarget(url.pathname + url.search);
      } catch {
        // Not an address: the customer goes home.
      }
      return `${config.publicOrigin}${LOGIN_PATH}?${new URLSearchParams({ via: "social", redirect: target })}`;
    },
  }),
];
