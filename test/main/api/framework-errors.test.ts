import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectTbError, useSharedPlatform, type TbError } from './api-kit.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** the server closed the connection after answering, without a reset */
  closedCleanly: boolean;
}

/** Sends bytes as they are (what fetch would refuse to send) and reads the first answer. */
function rawHttp(baseUrl: string, request: string): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let reset = false;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET') reset = true;
      else reject(err);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closedCleanly: !reset });
    });
    socket.write(request);
    // half-close: the server answers what it has and then closes
    socket.end();
  });
}

function tbError(body: string): TbError {
  const parsed = JSON.parse(body) as TbError;
  expect(Object.keys(parsed).sort()).toEqual(['errorCode', 'message', 'status', 'timestamp']);
  return parsed;
}

describe("Fastify's and Node's own errors are ThingsBoard error JSON", () => {
  const platform = useSharedPlatform({ bodyLimitBytes: 1024 });

  it('404 for an unknown route, 405 (with Allow) for a known one with another method, 413, 415, 414 for a long path parameter', async () => {
    const p = platform();
    const token = await p.login();
    await expectTbError(await p.http('/api/nope', { token }), 404, 32);
    const patch = await p.http('/api/device', { method: 'PATCH', token, json: {} });
    expect(patch.headers.get('allow')).toBe('POST');
    await expectTbError(patch, 405, 2, "Request method 'PATCH' is not supported");
    const deleteLogin = await p.http('/api/auth/login', { method: 'DELETE' });
    expect(deleteLogin.headers.get('allow')).toBe('POST');
    await expectTbError(deleteLogin, 405, 2);
    const device = await p.http(`/api/device/${crypto.randomUUID()}`, { method: 'PUT', token, json: {} });
    expect(device.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'DELETE']));
    await expectTbError(device, 405, 2);
    const big = await p.http('/api/device', { method: 'POST', token, json: { name: 'x'.repeat(2048) } });
    await expectTbError(big, 413, 31);
    const xml = await p.http('/api/device', {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/xml' },
      body: '<a/>',
    });
    await expectTbError(xml, 415, 31);
    const long = await p.http(`/api/device/${'a'.repeat(5000)}`, { token });
    expect(long.status).toBe(414);
    tbError(await long.text());
  });

  it('400 for a malformed URL, a malformed request line or length, and a request without Host', async () => {
    const p = platform();
    const badUrl = await rawHttp(p.urls.http, 'GET /api/device/%zz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(badUrl.status).toBe(400);
    expect(tbError(badUrl.body)).toMatchObject({ status: 400, errorCode: 31 });
    const badLength = await rawHttp(
      p.urls.http,
      'POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n',
    );
    expect(badLength.status).toBe(400);
    expect(tbError(badLength.body).message).toMatch(/Malformed HTTP request/);
    expect(badLength.headers.connection).toBe('close');
    const garbage = await rawHttp(p.urls.http, 'HELLO\r\n\r\n');
    expect(garbage.status).toBe(400);
    tbError(garbage.body);
    const noHost = await rawHttp(p.urls.http, 'GET /api/auth/user HTTP/1.1\r\n\r\n');
    expect(noHost.status).toBe(400);
    expect(tbError(noHost.body).message).toMatch(/Host/);
  });

  it('431 for a huge header: error JSON, Connection: close, a clean close, and the server serves the next connection', async () => {
    const p = platform();
    for (const base of [p.urls.http, p.urls.analytics]) {
      const answer = await rawHttp(
        base,
        `GET /api/auth/user HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n` +
          'GET /api/auth/user HTTP/1.1\r\nHost: localhost\r\n\r\n',
      );
      expect(answer.status, base).toBe(431);
      expect(answer.headers.connection).toBe('close');
      expect(tbError(answer.body)).toMatchObject({ status: 431, errorCode: 31 });
      expect(answer.closedCleanly).toBe(true);
      // the second request on that connection was not answered as garbage: the connection closed instead
      expect(answer.body).not.toContain('HTTP/1.1');
    }
    await expectTbError(await p.http('/api/auth/user'), 401, 10);
  });
});
