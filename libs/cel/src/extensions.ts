// The Kubernetes CEL extension functions that cel-js lacks, registered on an environment. Upstream
// enables these libraries for authentication and authorization expressions (StoredExpressions env):
// cel-go ext.Strings v2 (charAt, replace, reverse not included), ext.Sets, and k8s library.Lists,
// library.Regex and library.URLs. Not provided here: quantity, ip/cidr, format, semver, two-variable
// comprehensions (see README).
import type { Environment } from '@marcbachmann/cel-js';

class SetsNamespace {}

class CelUrl {
  constructor(readonly u: URL) {}
}

function parseCelUrl(s: string): URL | null {
  // library.URLs accepts absolute URIs and absolute paths (url.ParseRequestURI)
  if (s.startsWith('/')) {
    try {
      return new URL(s, 'http://path.invalid');
    } catch {
      return null;
    }
  }
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s)) return null;
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = a as number | bigint;
  const y = b as number | bigint;
  return x < y ? -1 : x > y ? 1 : 0;
}

const codePoints = (s: string) => Array.from(s);

export function registerKubernetesExtensions(env: Environment): Environment {
  env
    // ext.Strings v2
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const cps = codePoints(s);
      const n = Number(i);
      if (n < 0 || n > cps.length) throw new Error(`index out of range: ${i}`);
      return cps[n] ?? '';
    })
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b))
    .registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
      if (n < 0n) return s.split(a).join(b);
      let out = s;
      let from = 0;
      for (let k = 0n; k < n; k++) {
        const at = out.indexOf(a, from);
        if (at < 0) break;
        out = out.slice(0, at) + b + out.slice(at + a.length);
        from = at + b.length + (a === '' ? 1 : 0);
      }
      return out;
    })
    // ext.Sets: `sets` is a constant namespace object, the way cel-js models `optional.*`
    .registerType('SetsNamespace', SetsNamespace)
    .registerConstant('sets', 'SetsNamespace', new SetsNamespace())
    .registerFunction('SetsNamespace.contains(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) =>
      b.every((x) => a.some((y) => y === x)),
    )
    .registerFunction('SetsNamespace.equivalent(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) =>
      a.every((x) => b.some((y) => y === x)) && b.every((x) => a.some((y) => y === x)),
    )
    .registerFunction('SetsNamespace.intersects(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) =>
      a.some((x) => b.some((y) => y === x)),
    )
    // k8s library.Regex
    .registerFunction('string.find(string): string', (s: string, re: string) => new RegExp(re, 'u').exec(s)?.[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, re: string) =>
      [...s.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]),
    )
    .registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
      const all = [...s.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]);
      return n < 0n ? all : all.slice(0, Number(n));
    })
    // k8s library.Lists
    .registerFunction('list.isSorted(): bool', (l: unknown[]) => l.every((x, i) => i === 0 || compare(l[i - 1], x) <= 0))
    .registerFunction('list.sum(): dyn', (l: Array<bigint | number>) =>
      l.length === 0 ? 0n : l.reduce((a, b) => (a as number) + (b as number)),
    )
    .registerFunction('list.min(): dyn', (l: unknown[]) => {
      if (!l.length) throw new Error('min called on empty list');
      return l.reduce((a, b) => (compare(b, a) < 0 ? b : a));
    })
    .registerFunction('list.max(): dyn', (l: unknown[]) => {
      if (!l.length) throw new Error('max called on empty list');
      return l.reduce((a, b) => (compare(b, a) > 0 ? b : a));
    })
    .registerFunction('list.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.indexOf(x)))
    .registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.lastIndexOf(x)))
    // k8s library.URLs
    .registerType('kubernetes.URL', CelUrl)
    .registerFunction('isURL(string): bool', (s: string) => parseCelUrl(s) !== null)
    .registerFunction('url(string): kubernetes.URL', (s: string) => {
      const u = parseCelUrl(s);
      if (!u) throw new Error(`URL parse error during conversion from string: ${s}`);
      return new CelUrl(u);
    })
    .registerFunction('kubernetes.URL.getScheme(): string', (u: CelUrl) => (u.u.host === 'path.invalid' ? '' : u.u.protocol.slice(0, -1)))
    .registerFunction('kubernetes.URL.getHost(): string', (u: CelUrl) => (u.u.host === 'path.invalid' ? '' : u.u.host))
    .registerFunction('kubernetes.URL.getHostname(): string', (u: CelUrl) =>
      u.u.host === 'path.invalid' ? '' : u.u.hostname.replace(/^\[(.*)\]$/, '$1'),
    )
    .registerFunction('kubernetes.URL.getPort(): string', (u: CelUrl) => u.u.port)
    .registerFunction('kubernetes.URL.getEscapedPath(): string', (u: CelUrl) => u.u.pathname)
    .registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: CelUrl) => {
      const q: Record<string, string[]> = {};
      for (const [k, v] of u.u.searchParams) (q[k] ??= []).push(v);
      return q;
    });
  return env;
}
