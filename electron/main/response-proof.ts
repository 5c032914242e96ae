// The shell's check of a response from the core's origin: it must carry HMAC-SHA256(the launch's secret,
// the nonce the shell sent with that request) in SHELL_PROOF.proofHeader (main/api/shell-proof.ts makes
// it). No Electron here: the e2e proxy applies the very same check.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SHELL_PROOF } from '../ipc-contract.ts';

/** HMAC-SHA256(secret, nonce), base64url: what the core answers a nonce with. */
export function expectedProof(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(nonce).digest('base64url');
}

/** A fresh nonce for one request. */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** The first value of a header, by case-insensitive name. */
export function headerValue(
  headers: Record<string, string[] | string> | undefined,
  name: string,
): string | undefined {
  const key = headers && Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key ? headers[key] : undefined;
  return Array.isArray(value) ? value[0] : value;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the response headers prove the response answers `nonce` under `secret`. */
export function responseProven(
  secret: string,
  nonce: string | undefined,
  responseHeaders: Record<string, string[] | string> | undefined,
): boolean {
  const proof = headerValue(responseHeaders, SHELL_PROOF.proofHeader);
  return !!nonce && !!proof && sameText(proof, expectedProof(secret, nonce));
}
