// The password rule of spec §5/§9, shared by the forms (live hints) and the server (the check).

/** Special characters the rule accepts (spec §9). */
const PASSWORD_SPECIALS = "!#$%&@?-";
const PASSWORD_MIN_LENGTH = 8;

export type PasswordCheck = { length: boolean; lowercase: boolean; uppercase: boolean; digit: boolean; special: boolean };

export function checkPassword(password: string): PasswordCheck {
  return {
    length: password.length >= PASSWORD_MIN_LENGTH,
    lowercase: /[a-z]/.test(password),
    uppercase: /[A-Z]/.test(password),
    digit: /[0-9]/.test(password),
    special: [...PASSWORD_SPECIALS].some((c) => password.includes(c)),
  };
}

/** At least 8 characters with a lowercase, an uppercase, a digit and one of ! # $ % & @ ? - */
export function isValidPassword(password: string): boolean {
  return Object.values(checkPassword(password)).every(Boolean);
}
