/**
 * The replay's REST client of a ThingsBoard (a Sandboard or a real one): its login (POST /api/auth/login,
 * a JWT sent as X-Authorization: Bearer) or an API key (X-Authorization: ApiKey, as ThingsBoard 4.4 takes
 * it), JSON in and out, ThingsBoard's error JSON read into the message.
 */

/** A login, an API key, or an X-Authorization header as a caller sent it (a replay on the Sandboard itself). */
export type TargetAuth =
  { username: string; password: string } | { apiKey: string } | { authorization: string };

/** A REST answer that was not 2xx: its status and ThingsBoard's message. */
export class TargetHttpError extends Error {
  readonly status: number;
  constructor(method: string, path: string, status: number, message: string) {
    super(`${method} ${path}: ${status}${message ? ` ${message}` : ''}`);
    this.status = status;
  }
}

const REQUEST_TIMEOUT_MS = 60_000;
/** The largest answer read (a page of alarms or a device's latest values is far smaller). */
const MAX_ANSWER_CHARS = 16 * 1024 * 1024;

export interface TargetRest {
  readonly baseUrl: string;
  request<T>(
    method: string,
    path: string,
    body?: unknown,
    options?: { timeoutMs?: number },
  ): Promise<{ status: number; body: T }>;
  /** request, a non-2xx answer thrown as a TargetHttpError */
  json<T>(method: string, path: string, body?: unknown): Promise<T>;
}

async function readAnswer(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text.length > MAX_ANSWER_CHARS) throw new Error(`an answer of ${text.length} characters is too large`);
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const messageOf = (body: unknown): string =>
  typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
    ? (body as { message: string }).message
    : typeof body === 'string'
      ? body.slice(0, 300)
      : '';

/** Logs in (a user name and password) or takes the API key / token, and returns the client. */
export async function connectTargetRest(httpUrl: string, auth: TargetAuth): Promise<TargetRest> {
  const baseUrl = httpUrl.replace(/\/+$/, '');
  let header: string;
  const raw = async (method: string, path: string, body: unknown, timeoutMs: number, auth?: string) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (auth) headers['x-authorization'] = auth;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new Error(`cannot reach ${baseUrl} (${cause})`, { cause: err });
    }
    return { status: res.status, body: await readAnswer(res) };
  };
  if ('username' in auth) {
    const login = await raw(
      'POST',
      '/api/auth/login',
      { username: auth.username, password: auth.password },
      REQUEST_TIMEOUT_MS,
    );
    if (login.status !== 200)
      throw new TargetHttpError('POST', '/api/auth/login', login.status, messageOf(login.body));
    header = `Bearer ${(login.body as { token: string }).token}`;
  } else header = 'apiKey' in auth ? `ApiKey ${auth.apiKey}` : auth.authorization;

  const request: TargetRest['request'] = async <T>(
    method: string,
    path: string,
    body?: unknown,
    options: { timeoutMs?: number } = {},
  ) => {
    const res = await raw(method, path, body, options.timeoutMs ?? REQUEST_TIMEOUT_MS, header);
    return res as { status: number; body: T };
  };
  return {
    baseUrl,
    request,
    async json<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await request<T>(method, path, body);
      if (res.status < 200 || res.status > 299)
        throw new TargetHttpError(method, path, res.status, messageOf(res.body));
      return res.body;
    },
  };
}
