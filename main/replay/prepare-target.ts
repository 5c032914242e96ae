/**
 * The target's side of a replay, through its REST API only: the devices a recording names are looked up
 * by name, the missing ones created with the recorded profile (POST /api/device), their access tokens read.
 * Everything is looked up first, so that a recording the target cannot take (a profile it lacks) stops
 * before anything is written.
 */
import type { PlannedDevice, ReplayPlan } from './replay-plan.ts';
import { TargetHttpError, type TargetRest } from './target-rest.ts';

/** The recording cannot be replayed against this target; nothing was written. */
export class ReplayRefusedError extends Error {}

export interface TargetDevice {
  name: string;
  id: string;
  /** its access token (MQTT user name, device HTTP API path) */
  token: string | undefined;
  created: boolean;
}

interface EntityInfo {
  id: { id: string };
  name: string;
}

const q = encodeURIComponent;

async function findDevice(rest: TargetRest, name: string): Promise<string | undefined> {
  const res = await rest.request<{ id?: { id: string } }>('GET', `/api/tenant/devices?deviceName=${q(name)}`);
  if (res.status === 404) return undefined;
  if (res.status !== 200 || !res.body?.id)
    throw new TargetHttpError('GET', `/api/tenant/devices?deviceName=${name}`, res.status, '');
  return res.body.id.id;
}

async function tokenOf(rest: TargetRest, id: string): Promise<string | undefined> {
  const c = await rest.json<{ credentialsType: string; credentialsId: string }>(
    'GET',
    `/api/device/${id}/credentials`,
  );
  return c.credentialsType === 'ACCESS_TOKEN' ? c.credentialsId : undefined;
}

/** Looks everything up, refuses with every reason at once, then creates what is missing. */
export async function prepareTarget(rest: TargetRest, plan: ReplayPlan): Promise<Map<string, TargetDevice>> {
  if (plan.problems.length) throw new ReplayRefusedError(plan.problems.join('\n'));
  const profiles = new Map(
    (await rest.json<EntityInfo[]>('GET', '/api/deviceProfile/names')).map((p) => [p.name, p.id.id]),
  );
  const devices = [...plan.devices.values()];
  const existing = new Map<string, string>();
  for (const d of devices) {
    const id = await findDevice(rest, d.name);
    if (id) existing.set(d.name, id);
  }
  const problems: string[] = [];
  const missingProfiles = new Map<string, string[]>();
  for (const d of devices) {
    if (d.type !== undefined && !profiles.has(d.type))
      missingProfiles.set(d.type, [...(missingProfiles.get(d.type) ?? []), d.name]);
    else if (d.type === undefined && !existing.has(d.name))
      problems.push(
        `device '${d.name}' is not on the target and the recording names no profile for it (no device record)`,
      );
  }
  for (const [profile, names] of missingProfiles)
    problems.unshift(
      `the recording names device profile '${profile}' (devices ${names.map((n) => `'${n}'`).join(', ')}), which the target does not have: create or import it there first`,
    );
  if (problems.length) throw new ReplayRefusedError(problems.join('\n'));

  const out = new Map<string, TargetDevice>();
  const httpDevices = new Set<string>();
  for (const queue of plan.queues.values())
    for (const r of queue) if (r.kind === 'http.request') httpDevices.add(r.device);
  const needsToken = (d: PlannedDevice) => d.via === undefined || httpDevices.has(d.name);
  for (const d of devices) {
    let id = existing.get(d.name);
    const created = id === undefined;
    if (!id) {
      const device = await rest.json<{ id: { id: string } }>('POST', '/api/device', {
        name: d.name,
        type: d.type,
        deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profiles.get(d.type!) },
        additionalInfo: d.gateway ? { gateway: true } : {},
      });
      id = device.id.id;
    }
    out.set(d.name, {
      name: d.name,
      id,
      token: needsToken(d) ? await tokenOf(rest, id) : undefined,
      created,
    });
  }
  return out;
}
