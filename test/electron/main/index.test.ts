// The composed main process (electron/main/index.ts) with Electron faked and the real core: starting the
// app starts the core and shows its UI in a hardened window; quitting stops the core first.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Channel } from '../../../electron/ipc-contract.ts';
import { SANDBOARD_BIN } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { app, BrowserWindow, ipcMain, Menu, session, utilityProcess } from '../fake-electron.ts';

vi.mock('electron', () => import('../fake-electron.ts'));

describe('the composed main process', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('starts the core, shows its UI in a hardened window, and stops the core before quitting', async () => {
    const userData = tempDir();
    process.env.SANDBOARD_USER_DATA_DIR = userData;
    // The utility process cannot run here: `sandboard serve` in Node stands in, on free ports.
    utilityProcess.fork.mockImplementation((entry: string, args: string[]) => {
      expect(entry).toMatch(/core-entry\.js$/);
      const serveArgs = args.map((a, i) =>
        /^--(http|mqtt|analytics)-port$/.test(args[i - 1] ?? '') ? '0' : a,
      );
      const child = spawn(process.execPath, [SANDBOARD_BIN, ...serveArgs], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      return {
        stdout: child.stdout,
        stderr: child.stderr,
        kill: () => child.kill('SIGTERM'),
        postMessage: () => child.kill('SIGTERM'),
        once: (_event: 'exit', listener: (code: number) => void) =>
          child.once('exit', (code, signal) => listener(code ?? (signal ? 1 : 0))),
      };
    });

    await import('../../../electron/main/index.ts');
    delete process.env.SANDBOARD_USER_DATA_DIR;

    expect(app.setPath).toHaveBeenCalledWith('userData', userData);
    expect(app.enableSandbox).toHaveBeenCalled();
    await vi.waitFor(() => expect(BrowserWindow.instances).toHaveLength(1));
    const [win] = BrowserWindow.instances;
    expect(win!.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      preload: expect.stringMatching(/preload[\\/]index\.cjs$/),
    });
    expect(win!.options.icon).toMatch(/build[\\/]icon\.png$/);

    await vi.waitFor(() => expect(win!.webContents.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/), {
      timeout: 20_000,
    });
    const [, args] = utilityProcess.fork.mock.calls[0] as [string, string[]];
    expect(args.slice(0, 3)).toEqual(['serve', '--data-dir', join(userData, 'data')]);
    const page = await fetch(new URL('/v3/api-docs', win!.webContents.url));
    expect(page.status).toBe(200);

    // the bridge answers the window, the menu and the session hardening are in place
    const status = await ipcMain.handlers.get(Channel.coreStatus)!({
      sender: win!.webContents,
      senderFrame: { url: win!.webContents.url, parent: null },
    });
    expect(status).toMatchObject({ state: 'ready', urls: { dataDir: join(userData, 'data') } });
    expect(Menu.setApplicationMenu).toHaveBeenCalled();
    expect(session.defaultSession.permissionRequest).not.toBeNull();

    const quit = { preventDefault: vi.fn() };
    app.emit('before-quit', quit);
    expect(quit.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalled(), { timeout: 20_000 });
    expect(children[0]!.exitCode).toBe(0);
  });
});
