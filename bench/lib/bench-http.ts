/** REST calls of the benchmarks against a `sandboard serve` child: JSON in and out, 200 expected. */
export type BenchHttp = <T>(path: string, init?: RequestInit & { token?: string }) => Promise<T>;

export function benchHttp(baseUrl: string): BenchHttp {
  return async <T>(path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.body) headers.set('content-type', 'application/json');
    if (init.token) headers.set('x-authorization', `Bearer ${init.token}`);
    const res = await fetch(`${baseUrl}${path}`, { ...init, headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
}

/** Logs in as the demo tenant administrator; returns the JWT. */
export async function tenantToken(http: BenchHttp): Promise<string> {
  const { token } = await http<{ token: string }>('/api/auth/login', {
    method: 'POST',
    body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
  });
  return token;
}

/** Creates `count` gateway devices ("Bench Gateway g", access token bench-gateway-g); returns the tokens. */
export async function createBenchGateways(http: BenchHttp, token: string, count: number): Promise<string[]> {
  const tokens = Array.from({ length: count }, (_, g) => `bench-gateway-${g}`);
  for (const [g, accessToken] of tokens.entries()) {
    await http(`/api/device?accessToken=${accessToken}`, {
      method: 'POST',
      token,
      body: JSON.stringify({ name: `Bench Gateway ${g}`, additionalInfo: { gateway: true } }),
    });
  }
  return tokens;
}
