import type { WsServerMessage } from '../../shared/ws-messages.ts';
import { JsonSocket } from './json-socket.ts';

/** A client of the UI's live socket that lets a test await the next message of a type. */
export class LiveClient extends JsonSocket<WsServerMessage> {
  next<T extends WsServerMessage['type']>(
    type: T,
    where: (m: Extract<WsServerMessage, { type: T }>) => boolean = () => true,
  ): Promise<Extract<WsServerMessage, { type: T }>> {
    return this.nextMatching(
      (m) => m.type === type && where(m as Extract<WsServerMessage, { type: T }>),
    ) as Promise<Extract<WsServerMessage, { type: T }>>;
  }

  has(type: WsServerMessage['type']): boolean {
    return this.pending().some((m) => m.type === type);
  }
}

export function liveUrl(p: { urls: { http: string } }, query = ''): string {
  return `${p.urls.http.replace(/^http/, 'ws')}/api/sandboard/ws${query}`;
}

export async function connectLive(p: { urls: { http: string } }, token: string): Promise<LiveClient> {
  const client = new LiveClient(liveUrl(p));
  await client.opened();
  client.send({ type: 'auth', token });
  await client.next('ready');
  return client;
}
