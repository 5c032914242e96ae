import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { otaChecksum } from '../../../main/platform/ota-checksum.ts';

describe('OTA checksums as ThingsBoard (Guava) prints them', () => {
  const hello = Buffer.from('hello');
  it('digests are lower-case hex', () => {
    expect(otaChecksum('MD5', hello)).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(otaChecksum('SHA256', hello)).toBe(createHash('sha256').update(hello).digest('hex'));
    expect(otaChecksum('SHA384', hello)).toBe(createHash('sha384').update(hello).digest('hex'));
    expect(otaChecksum('SHA512', hello)).toBe(createHash('sha512').update(hello).digest('hex'));
  });
  it('32-bit hashes print their bytes little-endian (HashCode.fromInt)', () => {
    // crc32("hello") = 0x3610a686, murmur3_32("hello", 0) = 0x248bfa47
    expect(otaChecksum('CRC32', hello)).toBe('86a61036');
    expect(otaChecksum('MURMUR3_32', hello)).toBe('47fa8b24');
  });
  it('murmur3_128 prints h1 then h2, each little-endian', () => {
    expect(otaChecksum('MURMUR3_128', hello)).toBe('029bbd41b3a7d8cb191dae486a901e5b');
    expect(otaChecksum('MURMUR3_128', Buffer.alloc(0))).toBe('00000000000000000000000000000000');
  });
});
