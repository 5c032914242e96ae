import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ForkOptions } from 'electron';
import { CORE_STOP_MESSAGE, SHELL_PROOF } from '../../../electron/ipc-contract.ts';
import type { CoreStatus } from '../../../shared/desktop-bridge.ts';
import {
  CoreHost,
  portNotice,
  CoreStartError,
  parseReadyLine,
  setupCoreHost,
  type CoreChild,
  type CoreHostOptions,
  type ForkCore,
} from '../../../electron/main/core-host.ts';
import { lockDataDir } from '../../../main/store/data-dir-lock.ts';
import { CORE_ENV, CORE_NODE_FLAGS } from '../../../scripts/start-plan.ts';
import { SANDBOARD_BIN } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { app, dialog, Notification, resetFakeElectron, utilityProcess } from '../fake-electron.ts';

vi.mock('electron', () => import('../fake-electron.ts'));

const READY = (port: number) =>
  `sandboard ready ${JSON.stringify({
    http: `http://127.0.0.1:${port}`,
    mqtt: 'mqtt://127.0.0.1:1883',
    analytics: 'http://127.0.0.1:8888',
    dataDir: '/data',
  })}`;

/** A scripted utility process: the test writes its output and decides when it exits. */
class FakeChild extends EventEmitter implements CoreChild {
  stdout = new PassThrough();
  stderr = new PassThrough();
  messages: unknown[] = [];
  killed = false;
  exitOnStopMessage = true;
  readonly args: string[];
  readonly options: ForkOptions;
  constructor(args: string[], options: ForkOptions) {
    super();
    this.args = args;
    this.options = options;
  }
  say(line: string): void {
    this.stdout.write(`${line}\n`);
  }
  exit(code: number): void {
    this.emit('exit', code);
  }
  kill(): boolean {
    this.killed = true;
    setImmediate(() => this.exit(0));
    return true;
  }
  postMessage(message: unknown): void {
    this.messages.push(message);
    if (this.exitOnStopMessage) setImmediate(() => this.exit(0));
  }
}

function fakeHost(options: Partial<CoreHostOptions> = {}) {
  const children: FakeChild[] = [];
  const forked = new EventEmitter();
  const fork: ForkCore = (_entry, args, forkOptions) => {
    const child = new FakeChild(args, forkOptions);
    children.push(child);
    setImmediate(() => forked.emit('child', child));
    return child;
  };
  const statuses: CoreStatus[] = [];
  const host = new CoreHost({
    entry: '/app/dist/electron/core-entry.js',
    dataDir: '/data',
    fork,
    isPortFree: async () => true,
    restartDelaysMs: [0],
    log: () => undefined,
    ...options,
  });
  host.on('status', (s) => statuses.push(s));
  const nextChild = async () => ((await once(forked, 'child')) as [FakeChild])[0];
  return { host, children, statuses, nextChild };
}

const states = (statuses: CoreStatus[]) => statuses.map((s) => s.state);

beforeEach(() => resetFakeElectron());

describe('ready line', () => {
  it('parses the URLs the core prints', () => {
    expect(parseReadyLine(READY(8080))).toEqual({
      http: 'http://127.0.0.1:8080',
      mqtt: 'mqtt://127.0.0.1:1883',
      analytics: 'http://127.0.0.1:8888',
      dataDir: '/data',
    });
  });

  it('ignores anything else', () => {
    expect(parseReadyLine('First start: demo login tenant@thingsboard.org / tenant')).toBeNull();
    expect(parseReadyLine('sandboard ready {not json}')).toBeNull();
    expect(
      parseReadyLine('sandboard ready {"http":"file:///x","mqtt":"","analytics":"","dataDir":""}'),
    ).toBeNull();
    expect(parseReadyLine(`  ${READY(8080)}`)).toBeNull();
  });
});

describe('core host', () => {
  it('starts the core with the data dir and ports, and resolves on its ready line', async () => {
    const { host, statuses, nextChild } = fakeHost();
    const started = host.start();
    const child = await nextChild();
    child.say('some log line');
    child.say(READY(8080));
    await expect(started).resolves.toMatchObject({ http: 'http://127.0.0.1:8080' });
    expect(child.args).toEqual([
      'serve',
      '--data-dir',
      '/data',
      '--host',
      '127.0.0.1',
      '--http-port',
      '8080',
      '--mqtt-port',
      '1883',
      '--analytics-port',
      '8888',
    ]);
    expect(child.options).toMatchObject({ stdio: 'pipe' });
    // launched like `sandboard serve` everywhere else: a bounded young generation, two malloc arenas
    expect(child.options.execArgv).toEqual(CORE_NODE_FLAGS);
    expect(child.options.env).toMatchObject(CORE_ENV);
    expect(states(statuses)).toEqual(['starting', 'ready']);
    expect(host.httpOrigin()).toBe('http://127.0.0.1:8080');
    expect([...host.origins()]).toEqual(['http://127.0.0.1:8080', 'http://127.0.0.1:8888']);
  });

  it('uses a free port (0) where a default one is taken', async () => {
    const { host, nextChild } = fakeHost({ isPortFree: async (_h, port) => port !== 8080 });
    const started = host.start();
    const child = await nextChild();
    child.say(READY(43210));
    await started;
    expect(child.args.slice(5)).toEqual([
      '--http-port',
      '0',
      '--mqtt-port',
      '1883',
      '--analytics-port',
      '8888',
    ]);
    // the window and the menu say so: devices aimed at 8080 would reach the other program
    expect(host.status.portNotice).toBe(
      'Sandboard runs on other ports than usual: the UI and REST API on 43210 (8080 is held by another program). ' +
        'Devices and clients aimed at the usual ports reach that other program, not Sandboard.',
    );
  });

  it('has no port notice on the usual ports, or where any free port was asked for', async () => {
    const urls = {
      http: 'http://127.0.0.1:8080',
      mqtt: 'mqtt://127.0.0.1:1883',
      analytics: 'http://127.0.0.1:8888',
      dataDir: '/d',
    };
    expect(portNotice({ http: 8080, mqtt: 1883, analytics: 8888 }, urls)).toBeNull();
    expect(
      portNotice({ http: 0, mqtt: 0, analytics: 0 }, { ...urls, mqtt: 'mqtt://127.0.0.1:41883' }),
    ).toBeNull();
    expect(
      portNotice({ http: 8080, mqtt: 1883, analytics: 8888 }, { ...urls, mqtt: 'mqtt://127.0.0.1:41883' }),
    ).toMatch(/: MQTT on 41883 \(1883 is held by another program\)\./);
  });

  it('reports a core that exits before ready, with its stderr', async () => {
    const { host, statuses, nextChild } = fakeHost();
    const started = host.start();
    const child = await nextChild();
    child.stderr.write(
      'sandboard: The data directory /data is in use by another Sandboard process (pid 7).\n',
    );
    await new Promise((r) => setImmediate(r));
    child.exit(3);
    const err = await started.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreStartError);
    expect((err as CoreStartError).exitCode).toBe(3);
    expect((err as Error).message).toMatch(/in use by another Sandboard process/);
    expect(states(statuses)).toEqual(['starting', 'failed']);
  });

  it('restarts a crashed core on the same ports and reports it', async () => {
    const { host, statuses, nextChild } = fakeHost();
    const started = host.start();
    const first = await nextChild();
    first.say(READY(8080));
    await started;
    first.exit(1);
    const second = await nextChild();
    expect(statuses.at(-1)).toMatchObject({ state: 'restarting' });
    expect(statuses.at(-1)?.message).toMatch(/stopped unexpectedly \(exit code 1\)/);
    expect(second.args).toContain('8080');
    second.say(READY(8080));
    await vi.waitFor(() => expect(host.status.state).toBe('ready'));
    expect(host.status).toMatchObject({ restarts: 1, urls: { http: 'http://127.0.0.1:8080' } });
    expect(states(statuses)).toEqual(['starting', 'ready', 'restarting', 'ready']);
  });

  it('gives every launch its own proof secret and random demo passwords, and no secret once it stopped', async () => {
    const { host, nextChild } = fakeHost({ env: { PATH: '/bin' } });
    const started = host.start();
    const first = await nextChild();
    expect(host.proofSecret()).toBeNull();
    first.say(READY(8080));
    await started;
    const env = first.options.env as Record<string, string>;
    expect(env).toMatchObject({ PATH: '/bin', SANDBOARD_DEMO_PASSWORDS: 'random' });
    expect(env[SHELL_PROOF.secretEnv]).toMatch(/^[\w-]{43}$/);
    expect(host.proofSecret()).toBe(env[SHELL_PROOF.secretEnv]);
    expect(host.isReady()).toBe(true);
    first.exit(1);
    // restarting: nothing on the port is trusted
    expect(host.isReady()).toBe(false);
    expect(host.proofSecret()).toBeNull();
    const second = await nextChild();
    second.say(READY(8080));
    await vi.waitFor(() => expect(host.status.state).toBe('ready'));
    const secondSecret = (second.options.env as Record<string, string>)[SHELL_PROOF.secretEnv];
    expect(secondSecret).not.toBe(env[SHELL_PROOF.secretEnv]);
    expect(host.proofSecret()).toBe(secondSecret);
  });

  it('gives up after repeated crashes', async () => {
    const { host, nextChild } = fakeHost({ maxCrashes: 1 });
    const started = host.start();
    const first = await nextChild();
    first.say(READY(8080));
    await started;
    first.exit(1);
    const second = await nextChild();
    second.say(READY(8080));
    await vi.waitFor(() => expect(host.status.state).toBe('ready'));
    second.exit(134);
    await vi.waitFor(() => expect(host.status.state).toBe('failed'));
    expect(host.status.message).toMatch(/2 times .*exit code 134/);
    expect(host.active).toBe(false);
  });

  it('stops the core gracefully with the stop message', async () => {
    const { host, statuses, nextChild } = fakeHost();
    const started = host.start();
    const child = await nextChild();
    child.say(READY(8080));
    await started;
    await host.stop();
    expect(child.messages).toEqual([{ type: CORE_STOP_MESSAGE }]);
    expect(child.killed).toBe(false);
    expect(states(statuses).slice(-2)).toEqual(['stopping', 'stopped']);
    expect(host.active).toBe(false);
  });

  it('kills a core that does not stop in time', async () => {
    const { host, nextChild } = fakeHost({ stopTimeoutMs: 50 });
    const started = host.start();
    const child = await nextChild();
    child.exitOnStopMessage = false;
    child.say(READY(8080));
    await started;
    await host.stop();
    expect(child.killed).toBe(true);
    expect(host.status.state).toBe('stopped');
  });

  it('does not restart a core that exits while the app quits', async () => {
    const { host, children, nextChild } = fakeHost();
    const started = host.start();
    (await nextChild()).say(READY(8080));
    await started;
    await host.stop();
    await new Promise((r) => setTimeout(r, 20));
    expect(children).toHaveLength(1);
  });
});

describe('core host in the app', () => {
  it('stops the core before the app quits', async () => {
    const child = new FakeChild([], {});
    utilityProcess.fork.mockReturnValue(child);
    const host = setupCoreHost({ entry: '/e.js', dataDir: '/data' });
    const started = host.start();
    await vi.waitFor(() => expect(utilityProcess.fork).toHaveBeenCalled());
    child.say(READY(8080));
    await started;
    const event = { preventDefault: vi.fn() };
    app.emit('before-quit', event);
    expect(event.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalled());
    expect(child.messages).toEqual([{ type: CORE_STOP_MESSAGE }]);
    const again = { preventDefault: vi.fn() };
    app.emit('before-quit', again);
    expect(again.preventDefault).not.toHaveBeenCalled();
  });

  it('quits when asked while the core is still starting (before and after it was forked)', async () => {
    for (const when of ['checking ports', 'forked'] as const) {
      resetFakeElectron();
      const child = new FakeChild([], {});
      utilityProcess.fork.mockReturnValue(child);
      let released = false;
      const waiting: (() => void)[] = [];
      const portsChecked = () => {
        released = true;
        for (const resolve of waiting.splice(0)) resolve();
      };
      const host = setupCoreHost({ entry: '/e.js', dataDir: '/data' });
      // the real host checks ports first; hold that step to quit in the middle of it
      (host as unknown as { options: { isPortFree: () => Promise<boolean> } }).options.isPortFree = () =>
        released ? Promise.resolve(true) : new Promise((resolve) => waiting.push(() => resolve(true)));
      const started = host.start().catch((err: Error) => err);
      await vi.waitFor(() => expect(host.status.state).toBe('starting'));
      if (when === 'forked') {
        portsChecked();
        await vi.waitFor(() => expect(utilityProcess.fork).toHaveBeenCalled());
      }
      // as Electron's app.quit: before-quit, and the app quits unless a listener prevents it
      let quit = false;
      app.quit.mockImplementation(() => {
        const event = { preventDefault: vi.fn() };
        app.emit('before-quit', event);
        if (event.preventDefault.mock.calls.length === 0) quit = true;
      });
      app.quit();
      expect(quit).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      portsChecked();
      await vi.waitFor(() => expect(quit, when).toBe(true));
      expect(host.active, when).toBe(false);
      expect(await started).toBeInstanceOf(Error);
      expect(utilityProcess.fork).toHaveBeenCalledTimes(when === 'forked' ? 1 : 0);
      if (when === 'forked') expect(child.messages).toEqual([{ type: CORE_STOP_MESSAGE }]);
    }
  });

  it('tells the user with a notification when the core crashed, and asks when it cannot start', async () => {
    const first = new FakeChild([], {});
    const second = new FakeChild([], {});
    utilityProcess.fork.mockReturnValueOnce(first).mockReturnValueOnce(second);
    const host = setupCoreHost({ entry: '/e.js', dataDir: '/data' });
    const started = host.start();
    await vi.waitFor(() => expect(utilityProcess.fork).toHaveBeenCalledTimes(1));
    first.say(READY(8080));
    await started;
    first.exit(1);
    expect(Notification.shown).toEqual([
      { title: 'Sandboard restarted its platform core', body: expect.stringMatching(/stopped unexpectedly/) },
    ]);
    await vi.waitFor(() => expect(utilityProcess.fork).toHaveBeenCalledTimes(2), { timeout: 3000 });
    await host.stop();

    const failing = new FakeChild([], {});
    utilityProcess.fork.mockReturnValueOnce(failing);
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1 });
    const again = host.start();
    await vi.waitFor(() => expect(utilityProcess.fork).toHaveBeenCalledTimes(3));
    failing.exit(1);
    await expect(again).rejects.toThrow(/exited \(code 1\)/);
    await vi.waitFor(() => expect(dialog.showMessageBox).toHaveBeenCalled());
    expect(dialog.showMessageBox.mock.calls[0]).toMatchObject([
      { message: 'Sandboard could not run its platform core.', buttons: ['Try again', 'Quit'] },
    ]);
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalled());
  });
});

describe('core host with the real core', () => {
  // The utility process cannot run here; a Node child running `sandboard serve` stands in for it,
  // with the stop message mapped to SIGTERM (what core-entry.ts turns it into).
  let corePid = 0;
  const nodeFork: ForkCore = (_entry, args) => {
    const child = spawn(process.execPath, [SANDBOARD_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    corePid = child.pid!;
    return {
      stdout: child.stdout,
      stderr: child.stderr,
      kill: () => child.kill('SIGTERM'),
      postMessage: () => child.kill('SIGTERM'),
      once: (_event, listener) => child.once('exit', (code, signal) => listener(code ?? (signal ? 1 : 0))),
    };
  };
  let host: CoreHost | null = null;
  afterEach(async () => {
    await host?.stop();
    host = null;
  });

  it('starts it, restarts it on the same port after a kill -9, and stops it cleanly', async () => {
    const dataDir = tempDir();
    host = new CoreHost({
      entry: 'unused',
      dataDir,
      ports: { http: 0, mqtt: 0, analytics: 0 },
      fork: nodeFork,
      restartDelaysMs: [100],
      log: () => undefined,
    });
    const urls = await host.start();
    const health = await fetch(`${urls.http}/v3/api-docs`);
    expect(health.status).toBe(200);
    // the data directory is locked: a second core is refused
    await expect(lockDataDir(dataDir)).rejects.toThrow(`(pid ${corePid})`);

    process.kill(corePid, 'SIGKILL');
    await vi.waitFor(() => expect(host?.status.state).toBe('restarting'), { timeout: 5000 });
    await vi.waitFor(() => expect(host?.status.state).toBe('ready'), { timeout: 60_000 });
    expect(host.status.restarts).toBe(1);
    expect(host.status.urls?.http).toBe(urls.http);
    expect((await fetch(`${urls.http}/v3/api-docs`)).status).toBe(200);

    await host.stop();
    expect(host.status.state).toBe('stopped');
    (await lockDataDir(dataDir)).release();
  }, 150_000);
});
