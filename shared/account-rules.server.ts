// The account's fields as registration takes them (spec §5), for the page /register/ and the
// API's POST /api/user/register/ alike: one set of rules, one set of messages.
import { z } from "zod";
import { MESSAGES } from "./messages.ts";
import { isValidPassword } from "./password-rule.ts";
import { EMAIL_MAX_LENGTH, isEmail } from "./contact-rules.ts";

export const accountFields = {
  firstname: z.string().trim().min(1, MESSAGES.firstnameRequired).max(100, MESSAGES.fieldTooLong),
  lastname: z.string().trim().min(1, MESSAGES.lastnameRequired).max(100, MESSAGES.fieldTooLong),
  email: z
    .string()
    .trim()
    .min(1, MESSAGES.emailRequired)
    .max(EMAIL_MAX_LENGTH, MESSAGES.fieldTooLong)
    .refine(isEmail, MESSAGES.emailInvalid)
    // The API's OpenAPI document says what the refinement checks.
    .meta({ format: "email" }),
  password: z
    .string()
    .min(1, MESSAGES.passwordRequired)
    .max(200, MESSAGES.fieldTooLong)
    .refine(isValidPassword, MESSAGES.passwordRule),
};
