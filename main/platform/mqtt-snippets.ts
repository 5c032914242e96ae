import type { MqttSnippet } from '../../shared/schemas/mqtt-snippets.ts';
import type { PlatformContext } from './context.ts';

/** The tenant's saved MQTT payload snippets, in their order (table mqtt_snippets; sandboxes carry it). */
export class MqttSnippetService {
  private readonly ctx: PlatformContext;

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  list(): MqttSnippet[] {
    return this.ctx.db
      .all<{ body: string }>('SELECT body FROM mqtt_snippets ORDER BY position')
      .map((r) => JSON.parse(r.body) as MqttSnippet);
  }

  /** Replaces the whole list (already checked against its bounds); returns it. */
  async replace(list: MqttSnippet[]): Promise<MqttSnippet[]> {
    await this.ctx.admit?.();
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM mqtt_snippets');
      list.forEach((s, i) =>
        w.run('INSERT INTO mqtt_snippets (position, body) VALUES (?, ?)', [i, JSON.stringify(s)]),
      );
    });
    return list;
  }
}
