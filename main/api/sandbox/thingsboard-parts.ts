import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ThingsBoardPart } from '../../../shared/schemas/sandbox.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { Services } from '../../platform/services.ts';
import type { RuleChainService } from '../../rule-engine/rule-chain-service.ts';
import { exportChainFile } from '../../rule-engine/rule-chain-transfer.ts';

const csvCell = (v: string | null) =>
  v === null ? '' : /[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
const fileSafe = (name: string) => name.replace(/[^\w .-]+/g, '_').slice(0, 100) || 'unnamed';

/**
 * The parts of a sandbox ThingsBoard itself can import, in its own export formats (the same serializers
 * as this platform's ThingsBoard-compatible REST export): rule chains as "Export rule chain" saves them,
 * dashboards and device/asset profiles as their JSON export, devices as a bulk-import CSV.
 */
export function thingsboardParts(
  services: Services,
  ruleChains: RuleChainService | undefined,
): ThingsBoardPart[] {
  const db = services.ctx.db;
  const actor: Principal = {
    userId: services.ctx.tenantId,
    email: 'sandbox-export',
    authority: 'TENANT_ADMIN',
    tenantId: services.ctx.tenantId,
    customerId: null,
    sessionId: null,
    via: 'JWT',
  };
  const parts: ThingsBoardPart[] = [];
  if (ruleChains)
    for (const { id, name } of db.all<{ id: string; name: string }>(
      'SELECT id, name FROM rule_chains ORDER BY name',
    ))
      parts.push({
        kind: 'ruleChain',
        name: `${fileSafe(name)}.json`,
        data: exportChainFile(ruleChains, id, actor),
      });
  for (const { id, title } of db.all<{ id: string; title: string }>(
    'SELECT id, title FROM dashboards ORDER BY title',
  )) {
    const {
      id: _id,
      tenantId: _t,
      assignedCustomers: _c,
      ...dashboard
    } = services.dashboards.get(id, actor) as unknown as Record<string, unknown>;
    parts.push({ kind: 'dashboard', name: `${fileSafe(title)}.json`, data: dashboard });
  }
  for (const id of db.all<{ id: string }>('SELECT id FROM device_profiles ORDER BY name').map((r) => r.id)) {
    const p = services.profiles.get(id);
    parts.push({ kind: 'deviceProfile', name: `${fileSafe(p.name)}.json`, data: p });
  }
  for (const id of db.all<{ id: string }>('SELECT id FROM asset_profiles ORDER BY name').map((r) => r.id)) {
    const row = services.assetProfiles.findRow(id);
    if (row)
      parts.push({
        kind: 'assetProfile',
        name: `${fileSafe(row.name)}.json`,
        data: services.assetProfiles.toProfile(row),
      });
  }
  // ThingsBoard's "Import devices": map the columns Name, Type, Label and Access token in its dialog
  const rows = db.all<{ name: string; type: string; label: string | null; token: string | null }>(
    `SELECT d.name, d.type, d.label,
       CASE WHEN c.credentials_type = 'ACCESS_TOKEN' THEN c.credentials_id END AS token
     FROM devices d LEFT JOIN device_credentials c ON c.device_id = d.id ORDER BY d.name`,
  );
  const csv = [
    'name,type,label,access_token',
    ...rows.map((r) => [r.name, r.type, r.label, r.token].map(csvCell).join(',')),
  ];
  parts.push({ kind: 'devicesCsv', name: 'devices.csv', data: `${csv.join('\n')}\n` });
  return parts;
}

const FOLDERS: Record<ThingsBoardPart['kind'], string> = {
  ruleChain: 'rule-chains',
  dashboard: 'dashboards',
  deviceProfile: 'device-profiles',
  assetProfile: 'asset-profiles',
  devicesCsv: '.',
};

/** Writes the parts as files ThingsBoard's UI imports one by one: DIR/rule-chains/Root.json, DIR/devices.csv... */
export function writeThingsboardParts(dir: string, parts: ThingsBoardPart[]): string[] {
  const written: string[] = [];
  for (const part of parts) {
    const folder = join(dir, FOLDERS[part.kind]);
    mkdirSync(folder, { recursive: true });
    const path = join(folder, fileSafe(part.name));
    writeFileSync(
      path,
      typeof part.data === 'string' ? part.data : `${JSON.stringify(part.data, null, 2)}\n`,
    );
    written.push(path);
  }
  return written;
}
