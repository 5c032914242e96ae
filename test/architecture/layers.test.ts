import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, relativeSpecifiers } from './import-graph.ts';

/**
 * The house, as the code is read: each room and the rooms it may import (imports are the arrows). A
 * room is the first folder under main/ (or main/<file>.ts), or a top-level folder.
 */
const LEAVES = ['main/config.ts', 'main/version.ts', 'main/stop-triggers.ts', 'main/mqtt-lib.ts'];
const MAY_IMPORT: Record<string, string[]> = {
  shared: [],
  'main/store': [],
  'main/platform': ['main/store', 'shared'],
  'main/edge': ['main/platform', 'main/store', 'shared'],
  'main/rule-engine': ['main/edge', 'main/platform', 'main/store', 'shared'],
  'main/transport': ['main/rule-engine', 'main/edge', 'main/platform', 'main/store', 'shared'],
  'main/analytics': ['main/platform', 'main/store', 'shared', ...LEAVES],
  // a client of any ThingsBoard over MQTT: nothing of the platform's
  'main/gateway': ['shared', ...LEAVES],
  // the platform only through its protocols and its services' public face, never the store; device
  // scripts run in the rule engine's QuickJS sandbox (main/rule-engine/script/, nothing else of it: below)
  'main/simulator': ['main/gateway', 'main/rule-engine', 'main/platform', 'shared', ...LEAVES],
  // a replay: a client of any ThingsBoard over its protocols (REST, MQTT, device HTTP API)
  'main/replay': ['shared', ...LEAVES],
  // the in-app MQTT client: a client of any broker, nothing of the platform's
  'main/mqtt-client': ['shared', ...LEAVES],
  // the platform side that hosts gateway runtimes
  'main/connectors': ['main/gateway', 'main/platform', 'shared', ...LEAVES],
  // recordings of device traffic: the transports' taps and the platform's events
  'main/recording': ['main/transport', 'main/platform', 'shared', ...LEAVES],
  'main/api': [
    'main/recording',
    'main/replay',
    'main/mqtt-client',
    'main/connectors',
    'main/simulator',
    'main/analytics',
    'main/transport',
    'main/rule-engine',
    'main/edge',
    'main/platform',
    'main/store',
    'shared',
    ...LEAVES,
  ],
  // the composition root: above everything but the command line
  'main/app': [
    'main/api',
    'main/recording',
    'main/replay',
    'main/mqtt-client',
    'main/connectors',
    'main/simulator',
    'main/gateway',
    'main/analytics',
    'main/transport',
    'main/rule-engine',
    'main/edge',
    'main/platform',
    'main/store',
    'shared',
    ...LEAVES,
  ],
  'main/cli.ts': [
    'main/app',
    'main/replay',
    'main/simulator',
    'main/gateway',
    'main/store',
    'shared',
    ...LEAVES,
  ],
  'main/config.ts': [],
  'main/version.ts': [],
  'main/mqtt-lib.ts': [],
  // when a process started by npm stops (its signals, its parent's exit): scripts/start.js uses it too
  'main/stop-triggers.ts': [],
  renderer: ['shared'],
  electron: ['shared'],
};

function roomOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'main') return parts.length > 2 ? `main/${parts[1]}` : file;
  return parts[0]!;
}

const graph = importGraph(['main', 'shared', 'renderer/src', 'electron']);

describe('the layers', () => {
  it('knows the room of every source file', () => {
    const unknown = [...graph.keys()].filter((f) => !(roomOf(f) in MAY_IMPORT));
    expect(unknown, 'files in a room the layer rules do not name').toEqual([]);
  });

  it('has no import from a room to one it may not use (a lower layer to a higher one)', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      const from = roomOf(file);
      for (const dep of deps) {
        const to = roomOf(dep);
        if (to !== from && !MAY_IMPORT[from]?.includes(to)) wrong.push(`${file} -> ${dep}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('takes nothing of the rule engine into the simulator but its script sandbox', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph)
      if (roomOf(file) === 'main/simulator')
        for (const dep of deps)
          if (roomOf(dep) === 'main/rule-engine' && !dep.startsWith('main/rule-engine/script/'))
            wrong.push(`${file} -> ${dep}`);
    expect(wrong).toEqual([]);
  });

  it('has no import circle', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe('the import graph reader', () => {
  it('finds a circle and a wrong-way import in a made-up graph', () => {
    const made = new Map([
      ['main/platform/a.ts', ['main/rule-engine/b.ts']],
      ['main/rule-engine/b.ts', ['main/platform/a.ts']],
    ]);
    expect(importCycles(made)).toEqual([['main/platform/a.ts', 'main/rule-engine/b.ts']]);
    expect(MAY_IMPORT[roomOf('main/platform/a.ts')]).not.toContain(roomOf('main/rule-engine/b.ts'));
  });

  it('recognises each way a module is imported', () => {
    expect(
      relativeSpecifiers(
        [
          "import type { A } from '../electron/a.ts';",
          "export type { B } from './b.ts';",
          "import './side-effect.ts';",
          "const c = await import('../main/c.ts');",
          "import { d } from 'typebox';",
        ].join('\n'),
      ),
    ).toEqual(['../electron/a.ts', './b.ts', './side-effect.ts', '../main/c.ts']);
  });
});
