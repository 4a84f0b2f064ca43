// metadata.generateName → metadata.name, as the API server's SimpleNameGenerator does it (k8s.io/apiserver
// pkg/storage/names, with k8s.io/apimachinery/pkg/util/rand's alphabet).
import { randomInt } from 'node:crypto';

/** No vowels, so generated suffixes cannot spell words. */
export const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const MAX_NAME_LENGTH = 63;
export const RANDOM_SUFFIX_LENGTH = 5;
/** How much of the base survives: the whole name must still be a valid DNS label length. */
export const MAX_GENERATED_NAME_BASE_LENGTH = MAX_NAME_LENGTH - RANDOM_SUFFIX_LENGTH;

/** Returns an integer in [0, n); tests pass a fixed sequence. */
export type RandomIndex = (n: number) => number;

const cryptoIndex: RandomIndex = (n) => randomInt(n);

/**
 * Cuts `s` to at most `maxBytes` UTF-8 bytes. Upstream cuts bytes and may split a character; we stop before a
 * character that would not fit, which is the same for the ASCII names Kubernetes accepts.
 */
function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s;
  let out = '';
  let used = 0;
  for (const ch of s) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (used + size > maxBytes) break;
    out += ch;
    used += size;
  }
  return out;
}

export function randomSuffix(length: number = RANDOM_SUFFIX_LENGTH, random: RandomIndex = cryptoIndex): string {
  let out = '';
  for (let i = 0; i < length; i++) out += NAME_SUFFIX_ALPHABET[random(NAME_SUFFIX_ALPHABET.length)];
  return out;
}

/** `base` (cut to 58 bytes) followed by five random characters: at most 63 in all. */
export function generateName(base: string, random: RandomIndex = cryptoIndex): string {
  return truncateUtf8(base, MAX_GENERATED_NAME_BASE_LENGTH) + randomSuffix(RANDOM_SUFFIX_LENGTH, random);
}
