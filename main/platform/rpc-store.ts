import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { PersistentRpc, RpcStatus } from '../../shared/schemas/rpc.ts';
import type { Row } from '../store/durable-db.ts';
import { ref, type PlatformContext } from './context.ts';
import { queryPage } from './paging.ts';

export interface RpcRow {
  id: string;
  created_time: number;
  device_id: string;
  request_id: number;
  oneway: number;
  expiration_time: number;
  method: string;
  params: string | null;
  retries: number | null;
  /** delivery attempts that timed out (ThingsBoard's retries counter) */
  attempts: number;
  status: RpcStatus;
  response: string | null;
  additional_info: string | null;
}

/** Statuses after which nothing changes; DELIVERED is final for a one-way request. */
export function isFinal(row: Pick<RpcRow, 'status' | 'oneway'>): boolean {
  return (
    row.status === 'SUCCESSFUL' ||
    row.status === 'EXPIRED' ||
    row.status === 'FAILED' ||
    (row.status === 'DELIVERED' && row.oneway === 1)
  );
}

const parse = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));

/** ThingsBoard's persistent RPC entity (table rpc): durable rows and their JSON. */
export class RpcStore {
  private readonly ctx: PlatformContext;

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  toRpc(row: RpcRow): PersistentRpc {
    const tenantId = ref('TENANT', this.ctx.tenantId);
    const deviceId = ref('DEVICE', row.device_id);
    return {
      id: ref('RPC', row.id),
      createdTime: row.created_time,
      tenantId,
      deviceId,
      expirationTime: row.expiration_time,
      request: {
        id: row.id,
        tenantId,
        deviceId,
        oneway: row.oneway === 1,
        expirationTime: row.expiration_time,
        body: { method: row.method, params: row.params ?? 'null' },
        persisted: true,
        retries: row.retries,
      },
      response: parse(row.response),
      status: row.status,
      additionalInfo: parse(row.additional_info),
    };
  }

  async insert(row: RpcRow): Promise<void> {
    await this.ctx.db.write((w) =>
      w.run(
        `INSERT INTO rpc (id, created_time, device_id, request_id, oneway, expiration_time, method, params, retries,
           attempts, status, response, additional_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.id,
          row.created_time,
          row.device_id,
          row.request_id,
          row.oneway,
          row.expiration_time,
          row.method,
          row.params,
          row.retries,
          row.attempts,
          row.status,
          row.response,
          row.additional_info,
        ],
      ),
    );
  }

  async update(row: RpcRow): Promise<void> {
    await this.ctx.db.write((w) =>
      w.run('UPDATE rpc SET status = ?, response = ?, attempts = ? WHERE id = ?', [
        row.status,
        row.response,
        row.attempts,
        row.id,
      ]),
    );
  }

  async delete(id: string): Promise<void> {
    await this.ctx.db.write((w) => w.run('DELETE FROM rpc WHERE id = ?', [id]));
  }

  find(id: string): RpcRow | undefined {
    return this.ctx.db.get<RpcRow>('SELECT * FROM rpc WHERE id = ?', [id]);
  }

  /** Requests of a device not yet final (the ones a restart takes up again). */
  open(): RpcRow[] {
    return this.ctx.db
      .all<RpcRow>(
        "SELECT * FROM rpc WHERE status IN ('QUEUED', 'SENT', 'TIMEOUT', 'DELIVERED') ORDER BY created_time",
      )
      .filter((r) => !isFinal(r));
  }

  countOpen(deviceId: string): number {
    return Number(
      this.ctx.db.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM rpc WHERE device_id = ? AND (status IN ('QUEUED', 'SENT', 'TIMEOUT')
           OR (status = 'DELIVERED' AND oneway = 0))`,
        [deviceId],
      )?.n ?? 0,
    );
  }

  /** The highest request id given to each device's persistent requests: new ids continue above it. */
  lastRequestIds(): Map<string, number> {
    return new Map(
      this.ctx.db
        .all<{ device_id: string; n: number }>(
          'SELECT device_id, MAX(request_id) AS n FROM rpc GROUP BY device_id',
        )
        .map((r) => [r.device_id, Number(r.n)]),
    );
  }

  page(deviceId: string, q: PageQuery, status?: RpcStatus): PageData<PersistentRpc> {
    const where = ['e.device_id = ?'];
    const params: string[] = [deviceId];
    if (status) {
      where.push('e.status = ?');
      params.push(status);
    }
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM rpc e',
        where,
        params,
        searchColumn: 'e.method',
        sortColumns: {
          createdTime: 'e.created_time',
          expirationTime: 'e.expiration_time',
          request: 'e.method',
          response: 'e.response',
        },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toRpc(r as unknown as RpcRow),
    );
  }

  /** Drops finished requests older than the cutoff; returns how many. */
  async purgeFinishedBefore(cutoff: number): Promise<number> {
    return this.ctx.db.write((w) =>
      w.run(
        `DELETE FROM rpc WHERE created_time < ? AND (status IN ('SUCCESSFUL', 'EXPIRED', 'FAILED')
           OR (status = 'DELIVERED' AND oneway = 1))`,
        [cutoff],
      ),
    );
  }
}
