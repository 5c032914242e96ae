/**
 * bench:ws's WebSocket sessions, in a process of their own (forked with an IPC channel), so that decoding
 * their frames takes no CPU from the load generator. Each session subscribes (ENTITY_DATA, latestCmd on
 * the 3 keys) to the 100 devices of gateway 0. The first `measured` sessions note when the first frame
 * carrying each of gateway 0's publishes arrived, as absolute times (performance.timeOrigin + now), the
 * clock the parent notes PUBACKs with; the others only count frames.
 *
 * Messages: the parent sends a WsSessionsConfig, then 'stop'; the child answers 'ready' once every session
 * has its data page, and a WsSessionsResult after 'stop' (sessions closed).
 */
import { DEVICES_PER_GATEWAY, DEVICES_PER_PUBLISH, KEYS } from './gateway-load.ts';

export interface WsSessionsConfig {
  url: string;
  token: string;
  sessions: number;
  measured: number;
  /** the timestamp of gateway 0's publish 0 */
  base: number;
}

export interface WsSessionsResult {
  type: 'result';
  frames: number;
  /** per measured session: [publish index, absolute ms of its first frame] */
  firstFrames: [number, number][][];
}

interface EntityUpdate {
  entityId: { id: string };
  latest: { TIME_SERIES?: Record<string, { ts: number }> } | null;
}

interface DataPage {
  errorCode: number;
  errorMsg: string;
  data?: { data: { entityId: { id: string }; latest: { ENTITY_FIELD: { name: { value: string } } } }[] };
}

const GROUPS = DEVICES_PER_GATEWAY / DEVICES_PER_PUBLISH;
const send = (m: unknown) => process.send!(m);

let frames = 0;

/** Opens one session; resolves once its data page arrived. `firstFrames` is null for a counting session. */
async function openSession(config: WsSessionsConfig, firstFrames: Map<number, number> | null) {
  const ws = new WebSocket(config.url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('WebSocket failed to open')));
  });
  const deviceIndex = new Map<string, number>();
  const first = new Promise<void>((resolve, reject) => {
    ws.addEventListener('message', (e) => {
      if (deviceIndex.size === 0) {
        const m = JSON.parse(String(e.data)) as DataPage;
        if (m.errorCode !== 0 || !m.data) return reject(new Error(`ENTITY_DATA failed: ${m.errorMsg}`));
        for (const d of m.data.data)
          deviceIndex.set(d.entityId.id, Number(/ (\d+)$/.exec(d.latest.ENTITY_FIELD.name.value)![1]));
        resolve();
        return;
      }
      frames++;
      if (!firstFrames) return;
      const at = performance.timeOrigin + performance.now();
      const m = JSON.parse(String(e.data)) as { update: EntityUpdate[] | null };
      for (const u of m.update ?? []) {
        const ts = u.latest?.TIME_SERIES?.temperature?.ts;
        const device = deviceIndex.get(u.entityId.id);
        if (ts === undefined || device === undefined) continue;
        // publish i of gateway 0 carries devices (i % 10) * 10 .. +9 at ts base + floor(i / 10)
        const i = (ts - config.base) * GROUPS + Math.floor(device / DEVICES_PER_PUBLISH);
        if (!firstFrames.has(i)) firstFrames.set(i, at);
      }
    });
  });
  ws.send(
    JSON.stringify({
      authCmd: { cmdId: 0, token: config.token },
      cmds: [
        {
          type: 'ENTITY_DATA',
          cmdId: 1,
          query: {
            entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'GW0 Device ' },
            pageLink: { pageSize: DEVICES_PER_GATEWAY, page: 0 },
            entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
          },
          latestCmd: { keys: KEYS.map((key) => ({ type: 'TIME_SERIES', key })) },
        },
      ],
    }),
  );
  await first;
  if (deviceIndex.size !== DEVICES_PER_GATEWAY)
    throw new Error(`a session follows ${deviceIndex.size} devices, not ${DEVICES_PER_GATEWAY}`);
  return ws;
}

process.once('message', (config: WsSessionsConfig) => {
  void (async () => {
    const measured = Array.from({ length: config.measured }, () => new Map<number, number>());
    const sessions: WebSocket[] = [];
    for (let s = 0; s < config.sessions; s++) sessions.push(await openSession(config, measured[s] ?? null));
    process.once('message', () => {
      for (const ws of sessions) ws.close();
      const result: WsSessionsResult = { type: 'result', frames, firstFrames: measured.map((m) => [...m]) };
      send(result);
      process.disconnect();
    });
    send({ type: 'ready' });
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
});
