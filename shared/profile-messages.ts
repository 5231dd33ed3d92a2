// The Italian messages for the profile service's error codes (server/accounts/profile.ts), shared
// by first access and the account page, keyed by the names of the forms' fields; and the refusal
// tables of the two account use-cases both doors serve (the page and the API's user/save and
// user/changepassword): saving a profile and changing the password.
import type { PasswordChangeOutcome } from "#server/accounts/password-change.ts";
import type { ProfileErrorCode, ProfileErrors, ProfileField, ProfileUpdateResult } from "#server/accounts/profile.ts";
import { MESSAGES } from "./messages.ts";
import type { Refusal, RefusalTable } from "./refusals.ts";

const REQUIRED: Record<ProfileField, string> = {
  firstname: MESSAGES.firstnameRequired,
  lastname: MESSAGES.lastnameRequired,
  email: MESSAGES.emailRequired,
  mobile: MESSAGES.mobileInvalid,
  professionId: MESSAGES.professionRequired,
  universityId: MESSAGES.universityRequired,
  degreeCourseId: MESSAGES.degreeCourseRequired,
  subjectId: MESSAGES.subjectRequired,
  interestIds: MESSAGES.interestsRequired,
};

function messageFor(field: ProfileField, code: ProfileErrorCode): string {
  switch (code) {
    case "required":
      return REQUIRED[field];
    case "mismatch":
      return MESSAGES.degreeCourseMismatch;
    case "locked":
      return MESSAGES.professionLocked;
    case "invalid":
      return field === "email"
        ? MESSAGES.emailInvalid
        : field === "mobile"
          ? MESSAGES.mobileInvalid
          : field === "firstname" || field === "lastname"
            ? MESSAGES.fieldTooLong
            : MESSAGES.invalidChoice;
    default:
      return MESSAGES.invalidChoice;
  }
}

/** The form field of each profile field: the names the pages post. */
const FORM_FIELD = {
  firstname: "firstname",
  lastname: "lastname",
  email: "email",
  mobile: "mobile",
  professionId: "profession",
  universityId: "university",
  degreeCourseId: "degreeCourse",
  subjectId: "subject",
  interestIds: "interests",
} as const satisfies Record<ProfileField, string>;

export type ProfileFormField = (typeof FORM_FIELD)[ProfileField];

/** The service's refusals as a form reply's field errors. */
export function profileFieldErrors(errors: ProfileErrors): Partial<Record<ProfileFormField, string>> {
  const out: Partial<Record<ProfileFormField, string>> = {};
  for (const [field, code] of Object.entries(errors) as [ProfileField, ProfileErrorCode][]) {
    out[FORM_FIELD[field]] = messageFor(field, code);
  }
  return out;
}

/** The description under 'Errore': what keeps the profile from being saved. */
function describeProfileErrors(errors: ProfileErrors): string {
  const branch: ProfileField[] = ["professionId", "universityId", "degreeCourseId", "subjectId"];
  if (branch.some((f) => errors[f] === "required")) return MESSAGES.profileIncomplete;
  const refused = Object.entries(errors) as [ProfileField, ProfileErrorCode][];
  return refused.length === 1 ? messageFor(...refused[0]!) : MESSAGES.profileInvalid;
}

type ProfileSaveFailure = Extract<ProfileUpdateResult, { ok: false }>;
export type ProfileSaveRefusal = ProfileSaveFailure["reason"];

/** Why a profile save (`profiles.update`) was refused, as both doors answer it. */
export const PROFILE_SAVE_REFUSALS: RefusalTable<ProfileSaveRefusal> = {
  /** The message is the description of what was refused: see `profileSaveRefusal`. */
  invalid: { message: MESSAGES.profileInvalid, status: 400 },
  /** The account was deleted meanwhile: the caller must sign in again. */
  not_found: { message: MESSAGES.accountNotFound, status: 401 },
};

/** A refused profile save as both doors answer it: an invalid one says what keeps it from being saved. */
export function profileSaveRefusal(failure: ProfileSaveFailure): Refusal {
  const refusal = PROFILE_SAVE_REFUSALS[failure.reason];
  return failure.reason === "invalid" ? { ...refusal, message: describeProfileErrors(failure.errors) } : refusal;
}

export type PasswordChangeRefusal = Extract<PasswordChangeOutcome, { ok: false }>["reason"];

/**
 * Why a password change was refused, as both doors answer it. A lock's message is followed by
 * when to try again (`withRetryAfter`).
 */
export const PASSWORD_CHANGE_REFUSALS: RefusalTable<PasswordChangeRefusal> = {
  wrong_password: { message: MESSAGES.currentPasswordWrong, status: 400 },
  invalid_password: { message: MESSAGES.passwordRule, status: 400 },
  /** The account was deleted meanwhile: like a token of an account that is gone, 401. */
  unknown_user: { message: MESSAGES.accountNotFound, status: 401 },
  locked: { message: MESSAGES.currentPasswordLocked, status: 429 },
};
