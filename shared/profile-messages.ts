// The Italian messages for the profile service's error codes (server/accounts/profile.ts), shared
// by first access and the account page, keyed by the names of the forms' fields.
import type { PasswordChangeFailure } from "../server/accounts/password-change.ts";
import type { ProfileErrorCode, ProfileErrors, ProfileField } from "../server/accounts/profile.ts";
import { MESSAGES } from "./messages.ts";

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
export function describeProfileErrors(errors: ProfileErrors): string {
  const branch: ProfileField[] = ["professionId", "universityId", "degreeCourseId", "subjectId"];
  if (branch.some((f) => errors[f] === "required")) return MESSAGES.profileIncomplete;
  const refused = Object.entries(errors) as [ProfileField, ProfileErrorCode][];
  return refused.length === 1 ? messageFor(...refused[0]!) : MESSAGES.profileInvalid;
}

/** Why a password change was refused, as the customer reads it. */
export const PASSWORD_CHANGE_REFUSALS: Readonly<Record<PasswordChangeFailure, string>> = {
  wrong_password: MESSAGES.currentPasswordWrong,
  invalid_password: MESSAGES.passwordRule,
  unknown_user: MESSAGES.accountNotFound,
};
