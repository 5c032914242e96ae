import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { Channel } from '../../../electron/ipc-contract.ts';
import { createBridge, type PreloadIpc } from '../../../electron/preload/bridge.ts';
import type { SandboardBridge } from '../../../shared/desktop-bridge.ts';

function fakeIpc() {
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const ipc = {
    invoke: vi.fn(async (_channel: string, ..._args: unknown[]): Promise<unknown> => 'result'),
    on: vi.fn((channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
    }),
    removeListener: vi.fn((channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
      listeners.get(channel)?.delete(listener);
    }),
  } satisfies PreloadIpc;
  const emit = (channel: string, ...args: unknown[]) =>
    listeners.get(channel)?.forEach((l) => l({}, ...args));
  return { ipc, emit, listeners };
}

describe('preload bridge', () => {
  it("implements the UI's contract (shared/desktop-bridge.ts) exactly: the same functions, the same types", () => {
    type Implementation = ReturnType<typeof createBridge>;
    expectTypeOf<Implementation>().toExtend<SandboardBridge>();
    expectTypeOf<keyof Implementation>().toEqualTypeOf<keyof SandboardBridge>();
  });

  it('is a plain object of functions (nothing else crosses the context bridge)', () => {
    const bridge = createBridge(fakeIpc().ipc);
    for (const key of Object.keys(bridge)) {
      const descriptor = Object.getOwnPropertyDescriptor(bridge, key);
      expect(descriptor?.get).toBeUndefined();
      expect(typeof descriptor?.value).toBe('function');
    }
    expect(Object.keys(bridge).sort()).toEqual(
      [
        'appVersion',
        'coreStatus',
        'demoLogins',
        'onCoreStatus',
        'openConvertersFolder',
        'openExternal',
        'openFile',
        'saveFile',
      ].sort(),
    );
  });

  it('calls its own channels only', async () => {
    const { ipc } = fakeIpc();
    const bridge = createBridge(ipc);
    await bridge.appVersion();
    await bridge.openExternal('https://thingsboard.io');
    await bridge.openFile({ filters: [{ name: 'JSON', extensions: ['json'] }] });
    await bridge.saveFile({ suggestedName: 'a.json', contents: '{}' });
    await bridge.coreStatus();
    await bridge.openConvertersFolder();
    await bridge.demoLogins();
    expect(ipc.invoke.mock.calls.map(([channel]) => channel)).toEqual([
      Channel.appVersion,
      Channel.openExternal,
      Channel.openFile,
      Channel.saveFile,
      Channel.coreStatus,
      Channel.openConvertersFolder,
      Channel.demoLogins,
    ]);
  });

  it('delivers core status changes until unsubscribed', () => {
    const { ipc, emit, listeners } = fakeIpc();
    const bridge = createBridge(ipc);
    const seen: string[] = [];
    const unsubscribe = bridge.onCoreStatus((status) => seen.push(status.state));
    emit(Channel.coreStatusChanged, { state: 'restarting' });
    emit(Channel.coreStatusChanged, { state: 'ready' });
    unsubscribe();
    emit(Channel.coreStatusChanged, { state: 'stopped' });
    expect(seen).toEqual(['restarting', 'ready']);
    expect(listeners.get(Channel.coreStatusChanged)?.size).toBe(0);
  });
});
