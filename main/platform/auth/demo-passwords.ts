import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const DEMO_LOGINS_FILE = 'demo-logins.json';

export interface DemoPasswords {
  tenant: string;
  customer: string;
}

/**
 * A desktop install's demo passwords: random per install, never public, kept (like jwt-signing.key) in
 * a file only the owner can read, written and fsynced before the demo users are created with them. The
 * desktop shell hands them to its own window through the preload bridge; no HTTP endpoint serves them.
 */
export function loadOrCreateDemoPasswords(dataDir: string): DemoPasswords {
  const path = join(dataDir, DEMO_LOGINS_FILE);
  try {
    const logins = JSON.parse(readFileSync(path, 'utf8')) as { email?: unknown; password?: unknown }[];
    const of = (email: string) => logins.find((l) => l.email === email)?.password;
    const tenant = of('tenant@thingsboard.org');
    const customer = of('customer@thingsboard.org');
    if (typeof tenant === 'string' && typeof customer === 'string') return { tenant, customer };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof SyntaxError)) throw err;
  }
  const passwords = {
    tenant: randomBytes(12).toString('base64url'),
    customer: randomBytes(12).toString('base64url'),
  };
  const logins = [
    { email: 'tenant@thingsboard.org', password: passwords.tenant, authority: 'TENANT_ADMIN' },
    { email: 'customer@thingsboard.org', password: passwords.customer, authority: 'CUSTOMER_USER' },
  ];
  writeLogins(path, logins);
  return passwords;
}

interface DemoLogin {
  email: string;
  password: string;
}

function writeLogins(path: string, logins: unknown[]): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(logins, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Drops the logins whose password no longer works (changed, reset by an admin, user deleted), so the
 * desktop login page never offers a stale one. The file stays owner-only.
 */
export async function forgetStaleDemoLogins(
  dataDir: string,
  stillWorks: (email: string, password: string) => Promise<boolean>,
): Promise<string[]> {
  const path = join(dataDir, DEMO_LOGINS_FILE);
  let logins: DemoLogin[];
  try {
    logins = JSON.parse(readFileSync(path, 'utf8')) as DemoLogin[];
  } catch {
    return [];
  }
  if (!Array.isArray(logins)) return [];
  const kept: DemoLogin[] = [];
  const dropped: string[] = [];
  for (const login of logins) {
    if (await stillWorks(login.email, login.password)) kept.push(login);
    else dropped.push(login.email);
  }
  if (dropped.length > 0) writeLogins(path, kept);
  return dropped;
}
