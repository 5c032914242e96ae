/**
 * The platform's services over a real DurableDb, built as main/platform.ts builds them but without HTTP or
 * MQTT: for benchmarks that drive the rule engine and the edge queue in-process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Principal } from '../../main/platform/auth/principal.ts';
import { createContext } from '../../main/platform/context.ts';
import { createServices, type Services } from '../../main/platform/services.ts';
import { DurableDb } from '../../main/store/durable-db.ts';
import { migrations } from '../../main/store/migrations.ts';

export interface EdgeBenchServices {
  db: DurableDb;
  services: Services;
  admin: Principal;
  close(): Promise<void>;
}

export async function openEdgeServices(dir: string): Promise<EdgeBenchServices> {
  const db = await DurableDb.open({ dir, migrations });
  const ctx = await createContext(db);
  const services = createServices(
    ctx,
    randomBytes(32),
    {
      accessTokenTtlSec: 9000,
      refreshTokenTtlSec: 604800,
      issuer: 'thingsboard.io',
      loginMaxFailures: 10,
      loginWindowMs: 60_000,
    },
    { claimDurationMs: 86_400_000, edgeAckTimeoutMs: 30_000, edgeDeliveredRetentionMs: 0 },
  );
  await services.profiles.seedDefault();
  const admin: Principal = {
    userId: randomUUID(),
    email: 'bench@sandboard.local',
    authority: 'TENANT_ADMIN',
    tenantId: ctx.tenantId,
    customerId: null,
    sessionId: null,
    via: 'JWT',
  };
  return {
    db,
    services,
    admin,
    async close() {
      services.edgeQueue.stop();
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
