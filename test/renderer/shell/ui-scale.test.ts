import { describe, expect, it } from 'vitest';
import { scaleForKey, stepUiScale, toUiScale } from '../../../renderer/src/shell/ui-scale.ts';
import { wrapChunks } from '../../../renderer/src/components/code-wrap-chunks.ts';

describe('the UI scale', () => {
  it('Ctrl + and Ctrl - step through 100, 125 and 150 % and stop at the ends; Ctrl 0 goes back to 100 %', () => {
    expect(scaleForKey('=', 1)).toBe(1.25);
    expect(scaleForKey('+', 1.25)).toBe(1.5);
    expect(scaleForKey('+', 1.5)).toBe(1.5);
    expect(scaleForKey('-', 1.5)).toBe(1.25);
    expect(scaleForKey('-', 1)).toBe(1);
    expect(scaleForKey('0', 1.5)).toBe(1);
    expect(scaleForKey('s', 1.25)).toBeUndefined();
    expect(stepUiScale(1.25, -1)).toBe(1);
  });

  it('a saved value is taken only when it is one of the scales', () => {
    expect(toUiScale(1.25)).toBe(1.25);
    expect(toUiScale('1.5')).toBe(1.5);
    expect(toUiScale(3)).toBeUndefined();
    expect(toUiScale(undefined)).toBeUndefined();
  });
});

describe('commands wrap at separators', () => {
  it('a topic and a URL break after / . : and so on, never inside a word', () => {
    expect(wrapChunks('v1/devices/me/telemetry')).toEqual(['v1/', 'devices/', 'me/', 'telemetry']);
    expect(wrapChunks('http://127.0.0.1:38080/api')).toEqual([
      'http://',
      '127.',
      '0.',
      '0.',
      '1:',
      '38080/',
      'api',
    ]);
    expect(wrapChunks('mosquitto_pub -t my-token')).toEqual(['mosquitto_pub -t my-', 'token']);
    for (const chunk of wrapChunks('curl -X POST http://host:38080/api/v1/TOKEN/telemetry'))
      expect(chunk).not.toMatch(/^(devic|es|3808|0)$/);
  });
});
