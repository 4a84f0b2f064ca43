// `--register-with-taints`: comma-separated `key[=value]:Effect`, checked as upstream's taint parser does.
import { splitCsv, type ValueType } from '@cl/flags';
import { isQualifiedName, isValidLabelValue } from '../config/labels';
import type { Taint } from '../config/types';

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function parseTaint(spec: string): Taint {
  const colon = spec.split(':');
  if (colon.length !== 2) throw new Error(`invalid taint spec: ${spec}`);
  const effect = colon[1];
  if (!EFFECTS.includes(effect)) throw new Error(`invalid taint effect: ${effect}, unsupported taint effect`);
  const kv = colon[0].split('=');
  if (kv.length > 2) throw new Error(`invalid taint spec: ${spec}`);
  const [key, value = ''] = kv;
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) throw new Error(`invalid taint spec: ${spec}, ${keyErrs.join('; ')}`);
  const valErrs = isValidLabelValue(value);
  if (valErrs.length > 0) throw new Error(`invalid taint spec: ${spec}, ${valErrs.join('; ')}`);
  return value === '' ? { key, effect } : { key, value, effect };
}

export const taintsType: ValueType<Taint[]> = {
  name: 'mapStringString',
  parse: (text) => {
    const out: Taint[] = [];
    const seen = new Set<string>();
    for (const item of splitCsv(text)) {
      if (item === '') continue;
      const t = parseTaint(item);
      const id = `${t.key}:${t.effect}`;
      if (seen.has(id)) throw new Error(`duplicated taints with the same key and effect: ${JSON.stringify(t)}`);
      seen.add(id);
      out.push(t);
    }
    return out;
  },
  format: (v) => v.map((t) => `${t.key}${t.value ? '=' + t.value : ''}:${t.effect}`).join(','),
  isZero: (v) => v.length === 0,
};

/** `--reserved-memory 0:memory=1Gi,hugepages-1M=2Gi`, repeatable. */
export const reservedMemoryType: ValueType<Array<{ numaNode: number; limits: Record<string, string> }>> = (() => {
  const touched = new WeakSet<object>();
  return {
    name: 'reserved-memory',
    parse: (text, prev) => {
      const out = prev && touched.has(prev) ? [...prev] : [];
      for (const group of text.split(';')) {
        if (group.trim() === '') continue;
        const colon = group.indexOf(':');
        if (colon < 0) throw new Error(`the reserved memory has incorrect format, expected numaNodeID:type=quantity[,type=quantity...], got ${group}`);
        const numa = Number(group.slice(0, colon).trim());
        if (!Number.isInteger(numa) || numa < 0) throw new Error(`failed to parse the NUMA node ID: ${group.slice(0, colon)}`);
        const limits: Record<string, string> = {};
        for (const pair of group.slice(colon + 1).split(',')) {
          const eq = pair.indexOf('=');
          if (eq < 0) throw new Error(`the reserved limit has incorrect value, expected type=quantity, got ${pair}`);
          limits[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
        }
        out.push({ numaNode: numa, limits });
      }
      touched.add(out);
      return out;
    },
    format: (v) => v.map((r) => `${r.numaNode}:${Object.entries(r.limits).map(([k, q]) => `${k}=${q}`).join(',')}`).join(';'),
    isZero: (v) => v.length === 0,
  };
})();
