import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { ensureSelfSignedCertificate } from '../../main/gateway/connectors/rest/certificates.ts';

export interface TlsFront {
  /** mqtts://127.0.0.1:port */
  url: string;
  /** the self-signed certificate: its file and its PEM text */
  caFile: string;
  caPem: string;
  close(): Promise<void>;
}

/**
 * A platform's MQTT port behind TLS with a self-signed certificate, as a ThingsBoard on 8883 would be
 * (vitest and Playwright tests both use it).
 */
export async function startTlsFront(mqttUrl: string): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'sandboard-tls-front-'));
  const pair = await ensureSelfSignedCertificate(dir);
  const mqttPort = Number(new URL(mqttUrl).port);
  const server = createTlsServer({ cert: readFileSync(pair.cert), key: readFileSync(pair.key) }, (secure) => {
    const plain = connect(mqttPort, '127.0.0.1');
    secure.pipe(plain).pipe(secure);
    secure.on('error', () => plain.destroy());
    plain.on('error', () => secure.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `mqtts://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile: pair.cert,
    caPem: readFileSync(pair.cert, 'utf8'),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
