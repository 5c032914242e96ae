import { randomUUID } from 'node:crypto';
import type { BulkImportRequest, BulkImportResult } from '../../shared/schemas/entities.ts';
import type { AssetProfileService } from './asset-profiles.ts';
import type { AssetRow } from './assets.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { importLines, lineName, parseBulkImport, valuesToWrite, type Line } from './bulk-import-csv.ts';
import type { PlatformContext } from './context.ts';
import type { EntityDirectory } from './entity-directory.ts';
import { parseJson } from './paging.ts';
import type { StoreBudget } from './store-budget.ts';
import type { TelemetryService } from './telemetry.ts';

/** The columns ThingsBoard's asset import reads; a device's credential columns are ignored. */
const ASSET_FIELDS = ['NAME', 'TYPE', 'LABEL', 'DESCRIPTION'] as const;

/**
 * ThingsBoard's asset bulk import (POST /api/asset/bulk_import): one CSV line, one asset, found by name and
 * updated, or created with the profile its type names; attributes and time series from their columns.
 */
export class AssetBulkImport {
  private readonly ctx: PlatformContext;
  private readonly deps: {
    profiles: AssetProfileService;
    telemetry: TelemetryService;
    directory: EntityDirectory;
    storage?: StoreBudget;
  };

  constructor(ctx: PlatformContext, deps: AssetBulkImport['deps']) {
    this.ctx = ctx;
    this.deps = deps;
  }

  async run(request: BulkImportRequest, actor: Principal): Promise<BulkImportResult> {
    requireTenantAdmin(actor);
    const lines = parseBulkImport(request, { fields: ASSET_FIELDS, failUnsupported: false });
    await this.deps.storage?.admit();
    return importLines(lines, (line) => this.importLine(line, request));
  }

  private async importLine(line: Line, request: BulkImportRequest): Promise<'created' | 'updated'> {
    const name = lineName(line, 'Asset');
    const { fields } = line;
    const { profiles, telemetry, directory } = this.deps;
    await this.deps.storage?.admit();
    const ts = this.ctx.now();
    const created = await this.ctx.db.write((w) => {
      const existing = w.get<AssetRow>('SELECT * FROM assets WHERE name = ?', [name]);
      const info = existing ? parseJson(existing.additional_info) : {};
      if (fields.DESCRIPTION !== undefined) info.description = fields.DESCRIPTION;
      const profile = fields.TYPE
        ? profiles.findOrCreate(w, fields.TYPE)
        : existing
          ? { id: existing.asset_profile_id, name: existing.type }
          : (profiles.defaultRow() ?? profiles.findOrCreate(w, 'default'));
      let id: string;
      if (existing) {
        id = existing.id;
        w.run(
          'UPDATE assets SET type = ?, label = ?, asset_profile_id = ?, additional_info = ? WHERE id = ?',
          [profile.name, fields.LABEL ?? existing.label, profile.id, JSON.stringify(info), id],
        );
      } else {
        id = randomUUID();
        w.run(
          `INSERT INTO assets (id, created_time, name, type, label, asset_profile_id, customer_id, additional_info)
           VALUES (?, ?, ?, ?, ?, ?, NULL, ?)`,
          [id, ts, name, profile.name, fields.LABEL ?? null, profile.id, JSON.stringify(info)],
        );
      }
      const { attributes, timeseries } = valuesToWrite(line, existing !== undefined, request);
      for (const [scope, values] of attributes) telemetry.writeAttributes(w, id, scope, values, ts);
      if (Object.keys(timeseries).length)
        this.ctx.telemetry.save(w, directory.ensureTelemetryNum(w, 'ASSET', id), [
          { ts, values: timeseries },
        ]);
      return !existing;
    });
    return created ? 'created' : 'updated';
  }
}
