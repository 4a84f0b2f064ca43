import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32NoPadding(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function lengthPrefixed(s: string): Buffer {
  const body = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(body.length);
  return Buffer.concat([len, body]);
}

/**
 * kube-apiserver's id (`apiserver-` + lower base32 of the first 16 bytes of sha256 over the length-prefixed host
 * name and component name), used as `service.instance.id`.
 */
export function apiServerID(host: string = hostname(), component = 'kube-apiserver'): string {
  const sum = createHash('sha256').update(Buffer.concat([lengthPrefixed(host), lengthPrefixed(component)])).digest();
  return `apiserver-${base32NoPadding(sum.subarray(0, 16))}`;
}
