// Types of what the desktop app's preload exposes as `window.sandboard`. It is undefined when the UI
// runs in a plain browser against `sandboard serve`, so read it as `SandboardBridge | undefined`.
// Types only: the implementation lives in electron/preload/bridge.ts.
export type { SandboardBridge } from '../electron/preload/bridge.ts';
export type {
  CoreState,
  CoreStatus,
  CoreUrls,
  FileFilter,
  OpenedFile,
  OpenFileOptions,
  SavedFile,
  SaveFileOptions,
} from '../electron/ipc-contract.ts';
