// A bare Fastify server with one GET and one POST route, the baseline the API benchmarks compare against.
import Fastify from 'fastify';

const body = {
  id: { entityType: 'USER', id: '00000000-0000-4000-8000-000000000000' },
  email: 'tenant@thingsboard.org',
  authority: 'TENANT_ADMIN',
};
const app = Fastify({ logger: false });
app.get('/bare', async () => body);
app.post('/bare', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`bare ready ${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
