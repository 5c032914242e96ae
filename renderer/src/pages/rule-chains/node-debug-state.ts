/** A node's debug settings as the editor shows and writes them (ThingsBoard 4.x's debugSettings). */
import type { DebugSettings, RuleNodeJson } from '../../../../shared/rule-engine.ts';

/** ThingsBoard's DebugModeUtil default: "all messages" switches itself off after 15 minutes. */
export const DEBUG_ALL_MINUTES = 15;

export interface DebugState {
  failures: boolean;
  /** every message is recorded: until `until` (ms), or for the maximum time once saved (until null) */
  all: boolean;
  until: number | null;
}

/** What a node records now: "all" ends by itself at its time (auto-off). */
export function debugState(node: Pick<RuleNodeJson, 'debugMode' | 'debugSettings'>, now: number): DebugState {
  const s = node.debugSettings;
  if (!s) return { failures: node.debugMode === true, all: node.debugMode === true, until: null };
  if (s.allEnabled) return { failures: s.failuresEnabled === true, all: true, until: null };
  const until = s.allEnabledUntil ?? 0;
  return { failures: s.failuresEnabled === true, all: until > now, until: until > now ? until : null };
}

/**
 * The node fields that say it: debugSettings, and the old debugMode flag kept true only while "all" is on
 * (the server reads debugMode true over settings that are off as "all on").
 */
export function withDebug(state: {
  failures: boolean;
  all: boolean;
  until: number | null;
}): Pick<RuleNodeJson, 'debugMode' | 'debugSettings'> {
  const settings: DebugSettings = state.all
    ? state.until !== null
      ? { failuresEnabled: state.failures, allEnabled: false, allEnabledUntil: state.until }
      : { failuresEnabled: state.failures, allEnabled: true }
    : { failuresEnabled: state.failures, allEnabled: false, allEnabledUntil: 0 };
  return { debugMode: state.all, debugSettings: settings };
}

/** "debug" / "failures" on the graph, or nothing. */
export function debugMark(state: DebugState): string {
  if (state.all) return 'debug';
  return state.failures ? 'failures' : '';
}
