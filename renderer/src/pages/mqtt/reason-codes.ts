/** MQTT 5 reason codes the platform answers publishes with, as people know them. */
const NAMES: Record<number, string> = {
  0x00: 'Success',
  0x80: 'Unspecified error',
  0x83: 'Implementation specific error',
  0x87: 'Not authorized',
  0x90: 'Topic name invalid',
  0x96: 'Message rate too high',
  0x97: 'Quota exceeded',
  0x99: 'Payload format invalid',
};

export const REASON_CODES = Object.keys(NAMES).map(Number);

export function hex(code: number): string {
  return `0x${code.toString(16).padStart(2, '0').toUpperCase()}`;
}

export function reasonCodeLabel(code: number): string {
  return `${hex(code)} ${NAMES[code] ?? ''}`.trim();
}
