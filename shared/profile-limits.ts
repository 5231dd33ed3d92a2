/** The longest name, e-mail and mobile number a profile takes (the form's maxlength, the service's check). */
export const PROFILE_LIMITS = { name: 100, email: 254, mobile: 20 } as const;
