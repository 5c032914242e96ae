/**
 * The platform's services over a real DurableDb, built as main/app/ builds them but without HTTP or
 * MQTT: for benchmarks that drive the rule engine and the edge queue in-process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Principal } from '../../main/platform/auth/principal.ts';
import { openServices } from '../../main/app/domain.ts';
import { configFromEnv } from '../../main/config.ts';
import { EdgeQueue } from '../../main/edge/edge-queue.ts';
import type { Services } from '../../main/platform/services.ts';
import { DurableDb } from '../../main/store/durable-db.ts';
import { migrations } from '../../main/platform/migrations.ts';

export interface EdgeBenchServices {
  db: DurableDb;
  services: Services;
  edgeQueue: EdgeQueue;
  admin: Principal;
  close(): Promise<void>;
}

export async function openEdgeServices(dir: string): Promise<EdgeBenchServices> {
  const db = await DurableDb.open({ dir, migrations });
  const services = await openServices(db, randomBytes(32), configFromEnv({}));
  const edgeQueue = new EdgeQueue(services.ctx, { ackTimeoutMs: 30_000, deliveredRetentionMs: 0 });
  await services.profiles.seedDefault();
  const admin: Principal = {
    userId: randomUUID(),
    email: 'bench@sandboard.local',
    authority: 'TENANT_ADMIN',
    tenantId: services.ctx.tenantId,
    customerId: null,
    sessionId: null,
    via: 'JWT',
  };
  return {
    db,
    services,
    edgeQueue,
    admin,
    async close() {
      edgeQueue.stop();
      services.rpc.stop();
      await db.close();
    },
  };
}

/** Creates `count` edges with known secrets; returns their ids, routing keys and secrets. */
export async function createEdges(
  { services, admin }: EdgeBenchServices,
  count: number,
  prefix: string,
): Promise<{ id: string; routingKey: string; secret: string }[]> {
  const out: { id: string; routingKey: string; secret: string }[] = [];
  for (let i = 0; i < count; i++) {
    const secret = `secret-${prefix}-${i}-${randomUUID()}`;
    const edge = await services.edges.save(
      { name: `${prefix}-edge-${i}`, routingKey: `${prefix}-rk-${i}-${randomUUID()}`, secret },
      admin,
    );
    out.push({ id: edge.id.id, routingKey: edge.routingKey, secret });
  }
  return out;
}

/** Creates `count` devices, each assigned to every edge given; returns their ids. */
export async function createAssignedDevices(
  { services, admin }: EdgeBenchServices,
  count: number,
  prefix: string,
  edgeIds: string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const device = await services.devices.save({ name: `${prefix}-device-${i}` }, admin);
    for (const edgeId of edgeIds) await services.edges.assign(edgeId, 'DEVICE', device.id.id, admin);
    ids.push(device.id.id);
  }
  return ids;
}
