import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Random letters and digits, as ThingsBoard's access, activation and reset tokens. */
export function randomAlphanumeric(length: number): string {
  const bytes = randomBytes(length);
  let text = '';
  for (const b of bytes) text += ALPHANUMERIC[b % ALPHANUMERIC.length];
  return text;
}
