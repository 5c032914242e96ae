import { useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { useApi, useSessionStore } from '../api/api-context.tsx';
import { LiveCache } from './live-cache.ts';
import type { MessageFilter } from '../../../shared/schemas/mqtt-inspector.ts';
import { LiveSocket, type LiveStatus, type MqttMessagesMessage } from './live-socket.ts';
import { StatsHistory, type StatsSample } from './stats-history.ts';

interface LiveContextValue {
  status: LiveStatus;
  socket: LiveSocket;
  statsHistory: StatsHistory;
}

const LiveContext = createContext<LiveContextValue | null>(null);

/** Keeps one WebSocket open while logged in and feeds what it receives into React Query's cache. */
export function LiveProvider({ children }: { children: ReactNode }) {
  const client = useApi();
  const sessions = useSessionStore();
  const qc = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>('closed');
  const statsHistory = useMemo(() => new StatsHistory(), []);
  const socket = useMemo(() => {
    const cache = new LiveCache(qc, statsHistory);
    return new LiveSocket({
      token: () => sessions.session?.token ?? null,
      onMessage: (message) => cache.apply(message),
      onStatus: setStatus,
      onUnauthenticated: async () => {
        if (sessions.session) await client.refreshSession();
      },
      onReconnected: () => cache.refetchEverything(),
    });
  }, [client, sessions, qc, statsHistory]);

  useEffect(() => {
    const sync = () => {
      if (sessions.session) {
        socket.start();
        socket.tokenChanged();
      } else {
        socket.stop();
        statsHistory.clear();
      }
    };
    sync();
    const unsubscribe = sessions.subscribe(sync);
    return () => {
      unsubscribe();
      socket.stop();
    };
  }, [sessions, socket, statsHistory]);

  useEffect(() => {
    document.body.dataset.live = status;
  }, [status]);

  const value = useMemo(() => ({ status, socket, statsHistory }), [status, socket, statsHistory]);
  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
}

function useLive(): LiveContextValue {
  const value = useContext(LiveContext);
  if (!value) throw new Error('needs <LiveProvider>');
  return value;
}

export function useLiveStatus(): LiveStatus {
  return useLive().status;
}

/**
 * Follows a device's live telemetry and attributes while the calling component is mounted; true once
 * the server confirmed it pushes them.
 */
export function useFollowDevice(deviceId: string | undefined): boolean {
  const { socket } = useLive();
  useEffect(() => (deviceId ? socket.follow(deviceId) : undefined), [socket, deviceId]);
  return useSyncExternalStore(
    (onChange) => socket.onFollowingChange(onChange),
    () => (deviceId ? socket.isFollowing(deviceId) : false),
  );
}

export function useStatsHistory(): StatsSample[] {
  const { statsHistory } = useLive();
  return useSyncExternalStore(
    (onChange) => statsHistory.subscribe(onChange),
    () => statsHistory.snapshot,
  );
}

/** Follows the MQTT inspector's traffic matching the filter while mounted (and while `on`). */
export function useMqttTraffic(
  filter: MessageFilter,
  on: boolean,
  listener: (m: MqttMessagesMessage) => void,
): void {
  const { socket } = useLive();
  const key = JSON.stringify(filter);
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(
    () => (on ? socket.watchMqtt(JSON.parse(key) as MessageFilter, (m) => latest.current(m)) : undefined),
    [socket, key, on],
  );
}
