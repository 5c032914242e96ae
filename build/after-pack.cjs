// electron-builder afterPack hook: flips Electron's fuses in the packaged binary before it is signed.
// https://www.electronjs.org/docs/latest/tutorial/fuses
// eslint-disable-next-line @typescript-eslint/no-require-imports -- electron-builder loads this hook as CommonJS
const path = require('node:path');

/** electron-builder's Arch enum: ia32 0, x64 1, armv7l 2, arm64 3, universal 4 */
const ARCH_ARM64 = 3;
const ARCH_UNIVERSAL = 4;

/** The packaged Electron executable (the .app bundle on macOS), as electron-builder names it. */
function executablePath(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') {
    return path.join(appOutDir, `${packager.appInfo.productFilename}.app`);
  }
  if (electronPlatformName === 'win32')
    return path.join(appOutDir, `${packager.appInfo.productFilename}.exe`);
  return path.join(appOutDir, packager.executableName);
}

/** The fuse settings (FuseV1Options index → on/off). */
function fuseConfig(FuseVersion, FuseV1Options, context) {
  const darwin = context.electronPlatformName === 'darwin' || context.electronPlatformName === 'mas';
  return {
    version: FuseVersion.V1,
    // arm64 macOS binaries must carry a valid (ad-hoc) signature; flipping fuses breaks it until re-signed.
    resetAdHocDarwinSignature: darwin && (context.arch === ARCH_ARM64 || context.arch === ARCH_UNIVERSAL),
    [FuseV1Options.RunAsNode]: false,
    [FuseV1Options.EnableCookieEncryption]: true,
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
    [FuseV1Options.OnlyLoadAppFromAsar]: true,
    // The app never loads file:// pages.
    [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
  };
}

/** @param {import('app-builder-lib').AfterPackContext} context */
async function afterPack(context) {
  // @electron/fuses is an ES module.
  const { flipFuses, FuseVersion, FuseV1Options } = await import('@electron/fuses');
  const target = executablePath(context);
  await flipFuses(target, fuseConfig(FuseVersion, FuseV1Options, context));
  console.log(`  • fuses flipped  path=${target}`);
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.executablePath = executablePath;
