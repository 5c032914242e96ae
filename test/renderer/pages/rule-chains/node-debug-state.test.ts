import { describe, expect, it } from 'vitest';
import {
  debugMark,
  debugState,
  withDebug,
} from '../../../../renderer/src/pages/rule-chains/node-debug-state.ts';

describe('debug settings as the editor writes them', () => {
  it("failures only; all messages for ThingsBoard's maximum from saving; all messages until a time", () => {
    expect(withDebug({ failures: true, all: false, until: null })).toEqual({
      debugMode: false,
      debugSettings: { failuresEnabled: true, allEnabled: false, allEnabledUntil: 0 },
    });
    expect(withDebug({ failures: false, all: true, until: null })).toEqual({
      debugMode: true,
      debugSettings: { failuresEnabled: false, allEnabled: true },
    });
    expect(withDebug({ failures: false, all: true, until: 5_000 })).toEqual({
      debugMode: true,
      debugSettings: { failuresEnabled: false, allEnabled: false, allEnabledUntil: 5_000 },
    });
  });

  it('"all messages" switches itself off once its time has passed; failures stay on', () => {
    const saved = { debugSettings: { failuresEnabled: true, allEnabled: false, allEnabledUntil: 1_000 } };
    expect(debugState(saved, 500)).toEqual({ failures: true, all: true, until: 1_000 });
    expect(debugMark(debugState(saved, 500))).toBe('debug');
    expect(debugState(saved, 1_000)).toEqual({ failures: true, all: false, until: null });
    expect(debugMark(debugState(saved, 1_000))).toBe('failures');
  });

  it("a chain from before debugSettings (only ThingsBoard 3.x's debugMode) reads as all on or off", () => {
    expect(debugState({ debugMode: true }, 0)).toEqual({ failures: true, all: true, until: null });
    expect(debugMark(debugState({ debugMode: false }, 0))).toBe('');
  });
});
