import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FuseState, FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

type AfterPack = (context: unknown) => Promise<void>;
const afterPack = require(join(ROOT, 'build', 'after-pack.cjs')) as AfterPack;

/** A stand-in Electron binary: some bytes around the fuse sentinel and a 9-fuse wire (all "inherit"). */
function fakeElectronBinary(path: string): void {
  const wire = Buffer.from([1, 9, ...Array<number>(9).fill(FuseState.ENABLE)]);
  writeFileSync(
    path,
    Buffer.concat([Buffer.alloc(64, 7), Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'), wire]),
  );
}

describe('packaging', () => {
  it('flips the fuses in the packaged binary (afterPack hook)', async () => {
    const appOutDir = tempDir();
    fakeElectronBinary(join(appOutDir, 'sandboard'));
    await afterPack({
      appOutDir,
      electronPlatformName: 'linux',
      arch: 1,
      packager: { executableName: 'sandboard', appInfo: { productFilename: 'Sandboard' } },
    });
    const wire = await getCurrentFuseWire(join(appOutDir, 'sandboard'));
    const state = (fuse: FuseV1Options) => wire[fuse];
    expect(state(FuseV1Options.RunAsNode)).toBe(FuseState.DISABLE);
    expect(state(FuseV1Options.EnableCookieEncryption)).toBe(FuseState.ENABLE);
    expect(state(FuseV1Options.EnableNodeOptionsEnvironmentVariable)).toBe(FuseState.DISABLE);
    expect(state(FuseV1Options.EnableNodeCliInspectArguments)).toBe(FuseState.DISABLE);
    expect(state(FuseV1Options.EnableEmbeddedAsarIntegrityValidation)).toBe(FuseState.ENABLE);
    expect(state(FuseV1Options.OnlyLoadAppFromAsar)).toBe(FuseState.ENABLE);
    expect(state(FuseV1Options.GrantFileProtocolExtraPrivileges)).toBe(FuseState.DISABLE);
  });

  it('finds the executable electron-builder produces on each OS', () => {
    const { executablePath } = require(join(ROOT, 'build', 'after-pack.cjs')) as {
      executablePath: (c: unknown) => string;
    };
    const packager = { executableName: 'sandboard', appInfo: { productFilename: 'Sandboard' } };
    expect(executablePath({ appOutDir: '/o', electronPlatformName: 'darwin', packager })).toBe(
      '/o/Sandboard.app',
    );
    expect(executablePath({ appOutDir: '/o', electronPlatformName: 'win32', packager })).toBe(
      join('/o', 'Sandboard.exe'),
    );
    expect(executablePath({ appOutDir: '/o', electronPlatformName: 'linux', packager })).toBe(
      join('/o', 'sandboard'),
    );
  });

  it("has an electron-builder config that electron-builder's own schema accepts", async () => {
    const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      getConfig: (dir: string, file: string, extra: null) => Promise<Record<string, unknown>>;
      validateConfiguration: (config: unknown, logger: unknown) => Promise<void>;
    };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    const config = await getConfig(ROOT, join(ROOT, 'build', 'electron-builder.yml'), null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    expect(config).toMatchObject({
      appId: 'org.sandboard.app',
      productName: 'Sandboard',
      afterPack: 'build/after-pack.cjs',
    });

    // and rejects a wrong key, so the check above means something
    const bad = join(tempDir(), 'bad.yml');
    copyFileSync(join(ROOT, 'build', 'electron-builder.yml'), bad);
    writeFileSync(bad, `${readFileSync(bad, 'utf8')}\nnotAnOption: true\n`);
    await expect(
      validateConfiguration(await getConfig(ROOT, bad, null), new DebugLogger(false)),
    ).rejects.toThrow();
  });

  it('ships a 512x512 PNG icon', () => {
    const png = readFileSync(join(ROOT, 'build', 'icon.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
  });
});
