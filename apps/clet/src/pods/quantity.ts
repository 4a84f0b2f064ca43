// Kubernetes resource quantities ("100m", "1.5", "128Mi", "1G", "2e3") to numbers, and the CRI Linux
// resources the kubelet derives from them.
const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The quantity's value as a number (fractional for milli units); throws on malformed input. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(q.trim());
  if (!m) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return n * (BINARY[suffix] ?? DECIMAL[suffix]);
}

const CPU_PERIOD_US = 100_000;
const MIN_SHARES = 2;
const MIN_QUOTA_US = 1000;

export interface DerivedResources { cpuPeriod?: number; cpuQuota?: number; cpuShares: number; memoryLimitInBytes?: number }

/** cgroup values the kubelet sets for a container (cpu.shares from requests, CFS quota and memory from limits). */
export function linuxResources(limits: Record<string, string | number> = {}, requests: Record<string, string | number> = {}): DerivedResources {
  const reqCpu = requests.cpu ?? limits.cpu; // a limit without a request defaults the request
  const out: DerivedResources = { cpuShares: MIN_SHARES };
  if (reqCpu !== undefined) out.cpuShares = Math.max(MIN_SHARES, Math.floor((Math.round(parseQuantity(reqCpu) * 1000) * 1024) / 1000));
  if (limits.cpu !== undefined) {
    out.cpuPeriod = CPU_PERIOD_US;
    out.cpuQuota = Math.max(MIN_QUOTA_US, Math.floor((Math.round(parseQuantity(limits.cpu) * 1000) * CPU_PERIOD_US) / 1000));
  }
  if (limits.memory !== undefined) out.memoryLimitInBytes = Math.floor(parseQuantity(limits.memory));
  return out;
}
