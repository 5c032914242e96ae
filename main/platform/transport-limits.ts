import { parseRateLimit } from '../../shared/rate-limit-spec.ts';
import {
  TRANSPORT_LIMIT_KEYS,
  UNLIMITED,
  type TransportLimits,
} from '../../shared/schemas/transport-limits.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { getSetting, type PlatformContext } from './context.ts';
import { invalidArgument } from './errors.ts';

const SETTING = 'transportLimits';

/**
 * The tenant's transport rate limits (ThingsBoard's tenant profile fields), kept durably in settings;
 * unlimited until someone sets them. The transports listen to transportLimitsChanged.
 */
export class TransportLimitsService {
  private readonly ctx: PlatformContext;
  private current: TransportLimits;

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
    this.current = { ...UNLIMITED, ...getSetting<Partial<TransportLimits>>(ctx.db, SETTING) };
  }

  get(): TransportLimits {
    return { ...this.current };
  }

  async save(input: TransportLimits, actor: Principal): Promise<TransportLimits> {
    requireTenantAdmin(actor);
    const next = { ...UNLIMITED };
    for (const key of TRANSPORT_LIMIT_KEYS) {
      const value = (input[key] ?? '').trim();
      const parsed = parseRateLimit(value);
      if (!parsed.ok) throw invalidArgument(`${key}: ${parsed.error}`);
      next[key] = parsed.windows.map((w) => `${w.capacity}:${w.seconds}`).join(',');
    }
    await this.ctx.db.write((w) =>
      w.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [SETTING, JSON.stringify(next)]),
    );
    this.current = next;
    this.ctx.events.emit('transportLimitsChanged', this.get());
    return this.get();
  }
}
