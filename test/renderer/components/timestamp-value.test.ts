import { describe, expect, it } from 'vitest';
import { timestampOf } from '../../../renderer/src/components/timestamp-value.ts';

describe('numbers that are timestamps', () => {
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);
  it("ThingsBoard's activity attributes and *Time / *Ts keys with epoch ms are times", () => {
    for (const key of [
      'lastActivityTime',
      'lastConnectTime',
      'lastDisconnectTime',
      'inactivityAlarmTime',
      'bootTs',
    ])
      expect(timestampOf(key, now), key).toBe(now);
    expect(timestampOf('lastActivityTime', String(now))).toBe(now);
  });

  it('other keys, other numbers and other types are not', () => {
    expect(timestampOf('temperature', now)).toBeUndefined();
    expect(timestampOf('inactivityTimeout', 600_000)).toBeUndefined(); // a duration, not a moment
    expect(timestampOf('lastActivityTime', 0)).toBeUndefined();
    expect(timestampOf('uptime', 3600)).toBeUndefined();
    expect(timestampOf('startTs', now / 1000)).toBeUndefined(); // seconds: not ms
    expect(timestampOf('lastActivityTime', 'yesterday')).toBeUndefined();
    expect(timestampOf('lastActivityTime', now + 0.5)).toBeUndefined();
  });
});
