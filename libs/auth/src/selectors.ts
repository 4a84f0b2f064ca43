// A small parser for label and field selectors (`a=b,c!=d,e in (f,g),!h,i`), enough to hand authorizers
// the requirements. Returns null for text it cannot parse, which authorizers then ignore.
import type { SelectorRequirement } from './types';

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function parseOne(term: string): SelectorRequirement | null {
  const t = term.trim();
  if (!t) return null;
  let m = /^(\S+?)\s+(in|notin)\s*\(([^)]*)\)$/.exec(t);
  if (m) {
    const values = m[3].split(',').map((v) => v.trim()).filter((v) => v !== '');
    return { key: m[1], operator: m[2] === 'in' ? 'In' : 'NotIn', values };
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(t);
  if (m) return { key: m[1], operator: m[2] === '!=' ? 'NotEquals' : 'Equals', values: [m[3]] };
  m = /^!\s*([^=!\s()]+)$/.exec(t);
  if (m) return { key: m[1], operator: 'DoesNotExist', values: [] };
  m = /^([^=!\s()]+)$/.exec(t);
  if (m) return { key: m[1], operator: 'Exists', values: [] };
  return null;
}

export function parseSelector(s: string): SelectorRequirement[] | null {
  if (s.trim() === '') return [];
  const out: SelectorRequirement[] = [];
  for (const term of splitTopLevel(s)) {
    const r = parseOne(term);
    if (!r) return null;
    out.push(r);
  }
  return out;
}
