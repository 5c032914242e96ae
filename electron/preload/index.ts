// The preload script. Windows run sandboxed, so this is bundled into one CommonJS file
// (dist/electron/preload/index.cjs) that requires nothing but 'electron'.
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_KEY } from '../ipc-contract.ts';
import { createBridge } from './bridge.ts';

contextBridge.exposeInMainWorld(BRIDGE_KEY, createBridge(ipcRenderer));
