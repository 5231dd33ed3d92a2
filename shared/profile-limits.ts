import { EMAIL_MAX_LENGTH, MOBILE_MAX_LENGTH } from "./contact-rules.ts";

/** The longest name, e-mail and mobile number a profile takes (the form's maxlength, the service's check). */
export const PROFILE_LIMITS = { name: 100, email: EMAIL_MAX_LENGTH, mobile: MOBILE_MAX_LENGTH } as const;
