import type { DurableDb } from '../store/durable-db.ts';

/** A node's state of one entity is a small JSON document; a bigger one is refused rather than stored. */
export const MAX_STATE_CHARS = 65_536;

/**
 * What one rule node keeps per entity across restarts (ThingsBoard's RuleNodeState): a JSON document per
 * (node, entity), written durably. An entity's rows go when the entity is deleted (with its other data).
 */
export class RuleNodeStates {
  private readonly db: DurableDb;
  private readonly nodeId: string;

  constructor(db: DurableDb, nodeId: string) {
    this.db = db;
    this.nodeId = nodeId;
  }

  /** Up to limit states of this node, parsed; rows that do not parse are left out. */
  all(limit: number): Map<string, unknown> {
    const out = new Map<string, unknown>();
    const rows = this.db.all<{ entity_id: string; state_data: string }>(
      'SELECT entity_id, state_data FROM rule_node_states WHERE rule_node_id = ? LIMIT ?',
      [this.nodeId, limit],
    );
    for (const r of rows) {
      const state = parse(r.state_data);
      if (state !== undefined) out.set(r.entity_id, state);
    }
    return out;
  }

  get(entityId: string): unknown {
    const row = this.db.get<{ state_data: string }>(
      'SELECT state_data FROM rule_node_states WHERE rule_node_id = ? AND entity_id = ?',
      [this.nodeId, entityId],
    );
    return row ? parse(row.state_data) : undefined;
  }

  /** Stores an entity's state; resolves once it is on disk. */
  async save(entity: { entityType: string; id: string }, state: unknown): Promise<void> {
    const text = JSON.stringify(state);
    if (text.length > MAX_STATE_CHARS)
      throw new Error(
        `The rule node state of ${entity.entityType} ${entity.id} exceeds ${MAX_STATE_CHARS} characters`,
      );
    await this.db.write((w) =>
      w.run(
        `INSERT INTO rule_node_states (rule_node_id, entity_id, entity_type, state_data) VALUES (?, ?, ?, ?)
         ON CONFLICT (rule_node_id, entity_id) DO UPDATE SET state_data = excluded.state_data`,
        [this.nodeId, entity.id, entity.entityType, text],
      ),
    );
  }

  async remove(entityIds: string[]): Promise<void> {
    if (entityIds.length === 0) return;
    await this.db.write((w) => {
      for (const id of entityIds)
        w.run('DELETE FROM rule_node_states WHERE rule_node_id = ? AND entity_id = ?', [this.nodeId, id]);
    });
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
