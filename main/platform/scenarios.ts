import { randomUUID } from 'node:crypto';
import type { Scenario } from '../../shared/schemas/simulation.ts';
import type { DurableDb } from '../store/durable-db.ts';
import type { PlatformContext } from './context.ts';

/** A saved scenario (the simulation_scenarios table). */
export interface ScenarioRecord {
  id: string;
  createdTime: number;
  updatedTime: number;
  name: string;
  scenario: Scenario;
}

interface Row {
  id: string;
  created_time: number;
  updated_time: number;
  name: string;
  scenario: string;
}

function toRecord(row: Row): ScenarioRecord {
  return {
    id: row.id,
    createdTime: Number(row.created_time),
    updatedTime: Number(row.updated_time),
    name: row.name,
    scenario: JSON.parse(row.scenario) as Scenario,
  };
}

/** Saved simulation scenarios, durable before each write resolves. */
export class ScenarioService {
  private readonly db: DurableDb;
  private readonly now: () => number;
  private readonly admit: () => Promise<void>;

  constructor(ctx: PlatformContext) {
    this.db = ctx.db;
    this.now = ctx.now;
    this.admit = async () => ctx.admit?.();
  }

  list(): ScenarioRecord[] {
    return this.db.all<Row>('SELECT * FROM simulation_scenarios ORDER BY created_time, id').map(toRecord);
  }

  get(id: string): ScenarioRecord | undefined {
    const row = this.db.get<Row>('SELECT * FROM simulation_scenarios WHERE id = ?', [id]);
    return row ? toRecord(row) : undefined;
  }

  names(): Set<string> {
    return new Set(this.db.all<{ name: string }>('SELECT name FROM simulation_scenarios').map((r) => r.name));
  }

  async insert(scenario: Scenario): Promise<ScenarioRecord> {
    await this.admit();
    const id = randomUUID();
    const now = this.now();
    await this.db.write((w) =>
      w.run(
        'INSERT INTO simulation_scenarios (id, created_time, updated_time, name, scenario) VALUES (?, ?, ?, ?, ?)',
        [id, now, now, scenario.name, JSON.stringify(scenario)],
      ),
    );
    return this.get(id)!;
  }

  /** false when there is no such scenario */
  async update(id: string, scenario: Scenario): Promise<boolean> {
    await this.admit();
    const n = await this.db.write((w) =>
      w.run('UPDATE simulation_scenarios SET name = ?, scenario = ?, updated_time = ? WHERE id = ?', [
        scenario.name,
        JSON.stringify(scenario),
        this.now(),
        id,
      ]),
    );
    return n > 0;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.write((w) => w.run('DELETE FROM simulation_scenarios WHERE id = ?', [id]))) > 0;
  }
}
