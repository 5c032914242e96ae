// The raw aedes baseline of the ingest benchmark: a bare aedes 2 broker with default options, no
// authentication, no subscribers. A QoS 1 publish is PUBACKed once aedes has passed it through (to nobody).
import { createServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';

const broker = await Aedes.createBroker();
const server = createServer((socket) => broker.handle(socket));
server.listen({ host: '127.0.0.1', port: 0 }, () => {
  process.stdout.write(`aedes ready ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => broker.close(() => server.close(() => process.exit(0))));
