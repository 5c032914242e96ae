import { badRequestParams } from '../errors.ts';

/** ThingsBoard's UserPasswordPolicy as Sandboard applies it (bcrypt reads at most 72 bytes). */
export const PASSWORD_POLICY = {
  minimumLength: 6,
  maximumLength: 72,
  minimumUppercaseLetters: null,
  minimumLowercaseLetters: null,
  minimumDigits: null,
  minimumSpecialCharacters: null,
  allowWhitespaces: true,
  forceUserToResetPasswordIfNotValid: false,
  passwordExpirationPeriodDays: null,
  passwordReuseFrequencyDays: null,
} as const;

/** Refuses a new password outside the policy, with ThingsBoard's (passay's) wording. */
export function checkPasswordPolicy(password: string): void {
  const length = Buffer.byteLength(password, 'utf8');
  if ([...password].length < PASSWORD_POLICY.minimumLength)
    throw badRequestParams(`Password must be ${PASSWORD_POLICY.minimumLength} or more characters in length.`);
  if (length > PASSWORD_POLICY.maximumLength)
    throw badRequestParams(
      `Password must be no more than ${PASSWORD_POLICY.maximumLength} characters in length.`,
    );
}
