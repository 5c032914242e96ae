import { MqttTap, type TappedPublish } from '../../../shared/mqtt-tap-events.ts';
import type { InspectedMessage, MessageFilter } from '../../../shared/schemas/mqtt-inspector.ts';
import type { WsServerMessage } from '../../../shared/ws-messages.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { visibilityOf, type MqttInspector } from '../../transport/mqtt/mqtt-inspector.ts';

const FLUSH_MS = 250;
/** records waiting for the next flush, beyond which the oldest are skipped */
const PENDING_MAX = 5_000;
/** messages one connection gets per flush; the rest are counted as skipped */
const PER_FLUSH = 100;

interface Watcher {
  send(message: WsServerMessage): void;
}

/**
 * The inspector's traffic over the live WebSocket. It listens to the tap only while someone watches;
 * then the broker's cost is one array push per message, and formatting happens here, per flush, for
 * at most PER_FLUSH messages a connection.
 */
export class TrafficFeed {
  private readonly inspector: MqttInspector;
  private readonly watchers = new Map<Watcher, (r: TappedPublish) => InspectedMessage | null>();
  private pending: TappedPublish[] = [];
  private skipped = 0;
  private stopListening: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(inspector: MqttInspector) {
    this.inspector = inspector;
  }

  watch(watcher: Watcher, principal: Principal, filter: MessageFilter): void {
    this.watchers.set(watcher, this.inspector.matcher(visibilityOf(principal), filter));
    if (this.stopListening) return;
    this.stopListening = this.inspector.tap.events.on(MqttTap.publish, (r) => {
      if (!this.inspector.tap.enabled) return; // tapped for a recording, not kept by the inspector
      if (this.pending.length >= PENDING_MAX) {
        this.pending.shift();
        this.skipped++;
      }
      this.pending.push(r);
    });
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  unwatch(watcher: Watcher): void {
    if (!this.watchers.delete(watcher) || this.watchers.size > 0) return;
    this.stop();
  }

  stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    clearInterval(this.timer);
    this.pending = [];
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    const dropped = this.skipped;
    this.pending = [];
    this.skipped = 0;
    for (const [watcher, match] of this.watchers) {
      const messages: InspectedMessage[] = [];
      let skipped = dropped;
      // newest first, so that a flood shows its latest messages
      for (let i = batch.length - 1; i >= 0; i--) {
        if (messages.length === PER_FLUSH) {
          skipped += i + 1;
          break;
        }
        const m = match(batch[i]!);
        if (m) messages.push(m);
      }
      if (messages.length) watcher.send({ type: 'mqttMessages', messages: messages.reverse(), skipped });
    }
  }
}
