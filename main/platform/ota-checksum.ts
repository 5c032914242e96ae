import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { ChecksumAlgorithm } from '../../shared/schemas/ota.ts';

/** A 32-bit value as Guava's HashCode.fromInt prints it: its bytes little-endian, in hex. */
function int32Hex(n: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b.toString('hex');
}

function murmur3x86_32(data: Buffer, seed = 0): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const blocks = data.length >>> 2;
  for (let i = 0; i < blocks; i++) {
    let k = data.readUInt32LE(i * 4);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = blocks * 4;
  const rest = data.length & 3;
  if (rest > 0) {
    let k = 0;
    for (let i = rest - 1; i >= 0; i--) k = (k << 8) | data[tail + i]!;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= data.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const M64 = (1n << 64n) - 1n;
const rotl64 = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M64;
function fmix64(k: bigint): bigint {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  k ^= k >> 33n;
  return k;
}

/** MurmurHash3 x64 128-bit, seed 0, as Guava's murmur3_128 prints it (h1 then h2, each little-endian). */
function murmur3x64_128Hex(data: Buffer): string {
  const c1 = 0x87c37b91114253d5n;
  const c2 = 0x4cf5ad432745937fn;
  let h1 = 0n;
  let h2 = 0n;
  const blocks = Math.floor(data.length / 16);
  for (let i = 0; i < blocks; i++) {
    let k1 = data.readBigUInt64LE(i * 16);
    let k2 = data.readBigUInt64LE(i * 16 + 8);
    k1 = (k1 * c1) & M64;
    k1 = rotl64(k1, 31n);
    k1 = (k1 * c2) & M64;
    h1 ^= k1;
    h1 = rotl64(h1, 27n);
    h1 = (h1 + h2) & M64;
    h1 = (h1 * 5n + 0x52dce729n) & M64;
    k2 = (k2 * c2) & M64;
    k2 = rotl64(k2, 33n);
    k2 = (k2 * c1) & M64;
    h2 ^= k2;
    h2 = rotl64(h2, 31n);
    h2 = (h2 + h1) & M64;
    h2 = (h2 * 5n + 0x38495ab5n) & M64;
  }
  const tail = data.subarray(blocks * 16);
  let k1 = 0n;
  let k2 = 0n;
  for (let i = tail.length - 1; i >= 8; i--) k2 ^= BigInt(tail[i]!) << BigInt((i - 8) * 8);
  for (let i = Math.min(tail.length, 8) - 1; i >= 0; i--) k1 ^= BigInt(tail[i]!) << BigInt(i * 8);
  if (tail.length > 8) {
    k2 = (k2 * c2) & M64;
    k2 = rotl64(k2, 33n);
    k2 = (k2 * c1) & M64;
    h2 ^= k2;
  }
  if (tail.length > 0) {
    k1 = (k1 * c1) & M64;
    k1 = rotl64(k1, 31n);
    k1 = (k1 * c2) & M64;
    h1 ^= k1;
  }
  const len = BigInt(data.length);
  h1 ^= len;
  h2 ^= len;
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  const out = Buffer.alloc(16);
  out.writeBigUInt64LE(h1, 0);
  out.writeBigUInt64LE(h2, 8);
  return out.toString('hex');
}

/** A package's checksum as ThingsBoard computes it (Guava's Hashing, printed as lower-case hex). */
export function otaChecksum(algorithm: ChecksumAlgorithm, data: Buffer): string {
  switch (algorithm) {
    case 'MD5':
      return createHash('md5').update(data).digest('hex');
    case 'SHA256':
      return createHash('sha256').update(data).digest('hex');
    case 'SHA384':
      return createHash('sha384').update(data).digest('hex');
    case 'SHA512':
      return createHash('sha512').update(data).digest('hex');
    case 'CRC32':
      return int32Hex(crc32(data));
    case 'MURMUR3_32':
      return int32Hex(murmur3x86_32(data));
    case 'MURMUR3_128':
      return murmur3x64_128Hex(data);
  }
}
