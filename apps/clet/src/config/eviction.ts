// Eviction thresholds as ParseThresholdConfig checks them (first error only, as upstream).
import { parseDuration } from '@cl/flags';

const SIGNALS = new Set([
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'containerfs.available',
  'containerfs.inodesFree',
  'allocatableMemory.available',
  'pid.available',
]);

const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);

/** resource.ParseQuantity's checks; returns the numeric sign (-1, 0, 1) or throws its message. */
export function quantitySign(text: string): number {
  const m = QUANTITY.exec(text);
  if (!m) throw new Error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  const suffix = m[2];
  if (!SUFFIXES.has(suffix) && !/^[eE][-+]?[0-9]+$/.test(suffix)) throw new Error("unable to parse quantity's suffix");
  const n = Number(m[1]);
  if (Number.isNaN(n)) throw new Error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  return Math.sign(n);
}

function checkStatement(signal: string, value: string): void {
  if (!SIGNALS.has(signal)) throw new Error(`unsupported eviction signal ${signal}`);
  if (value.endsWith('%')) {
    if (value === '0%' || value === '100%') return;
    const body = value.replace(/%+$/, '');
    const p = Number(body);
    if (body.trim() === '' || Number.isNaN(p)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(body)}: invalid syntax`);
    if (p < 0) throw new Error(`eviction percentage threshold ${signal} must be >= 0%: ${value}`);
    if (p > 100) throw new Error(`eviction percentage threshold ${signal} must be <= 100%: ${value}`);
    return;
  }
  if (quantitySign(value) <= 0) throw new Error(`eviction threshold ${signal} must be positive: ${value}`);
}

export function checkEvictionThresholds(
  hard: Record<string, string>,
  soft: Record<string, string>,
  softGrace: Record<string, string>,
  minimumReclaim: Record<string, string>,
): string | null {
  try {
    for (const [s, v] of Object.entries(hard)) checkStatement(s, v);
    for (const [s, v] of Object.entries(soft)) checkStatement(s, v);
    for (const [s, v] of Object.entries(softGrace)) {
      if (!SIGNALS.has(s)) throw new Error(`unsupported eviction signal ${s}`);
      if (parseDuration(v) < 0) throw new Error(`invalid eviction grace period specified: ${v}, must be a positive value`);
    }
    for (const [s, v] of Object.entries(minimumReclaim)) {
      if (!SIGNALS.has(s)) throw new Error(`unsupported eviction signal ${s}`);
      if (v.endsWith('%')) {
        const p = Number(v.slice(0, -1));
        if (Number.isNaN(p) || p < 0) throw new Error(`minimum reclaim for signal ${s} must be non-negative: ${v}`);
      } else if (quantitySign(v) < 0) throw new Error(`minimum reclaim for signal ${s} must be non-negative: ${v}`);
    }
    for (const s of Object.keys(soft)) {
      if (!(s in softGrace)) throw new Error(`grace period must be specified for the soft eviction threshold ${s}`);
    }
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
