/** A self-signed certificate and key for HTTPS demos, made with the openssl command. */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CertificatePair {
  cert: string;
  key: string;
}

/**
 * Writes cert.pem and key.pem (P-256, valid 825 days, for localhost, 127.0.0.1, ::1 and `host`) into dir,
 * unless both exist already. Needs openssl on the PATH (it is on Linux and macOS; on Windows it comes with Git).
 */
export async function ensureSelfSignedCertificate(dir: string, host = '127.0.0.1'): Promise<CertificatePair> {
  const pair = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  if (existsSync(pair.cert) && existsSync(pair.key)) return pair;
  mkdirSync(dir, { recursive: true });
  const names = new Set(['DNS:localhost', 'IP:127.0.0.1', 'IP:::1']);
  if (host && host !== '0.0.0.0' && host !== '::')
    names.add(/^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`);
  const args = [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    pair.key,
    '-out',
    pair.cert,
    '-days',
    '825',
    '-subj',
    '/CN=Sandboard REST connector',
    '-addext',
    `subjectAltName=${[...names].join(',')}`,
  ];
  try {
    await run('openssl', args, { timeout: 30_000 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error(
        'openssl was not found: install it (or Git for Windows, which has it) to generate a certificate, or give server.security.cert and key files',
        { cause: err },
      );
    throw new Error(`openssl could not make a certificate: ${e.stderr?.trim() || e.message}`, { cause: err });
  }
  return pair;
}
