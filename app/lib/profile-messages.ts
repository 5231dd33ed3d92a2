// The Italian messages for the profile service's error codes (server/accounts/profile.ts), shared
// by first access and the account page.
import type { ProfileErrorCode, ProfileField } from "../../server/accounts/profile";
import { MESSAGES } from "./messages";

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

export function messageFor(field: ProfileField, code: ProfileErrorCode): string {
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
