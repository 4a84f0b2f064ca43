// --make-iptables-util-chains (default true), as upstream's initNetworkUtil: for each iptables family on the
// host, the KUBE-IPTABLES-HINT chain in mangle (tells other components which iptables backend is in use),
// for IPv4 the KUBE-FIREWALL chain jumped to from INPUT and OUTPUT with the rule that drops martian packets
// to 127.0.0.0/8 (route_localnet protection), and KUBE-KUBELET-CANARY chains in mangle, nat and filter that are
// checked every minute: when someone flushes the tables, the canary is gone and everything is made again.
// The chain names are upstream's, because other components look for them by name. Every step is idempotent.
import { execFile } from 'node:child_process';
import { logLine, type LogFn } from '../log';

const HINT = 'KUBE-IPTABLES-HINT';
const FIREWALL = 'KUBE-FIREWALL';
export const CANARY = 'KUBE-KUBELET-CANARY';
const CANARY_TABLES = ['mangle', 'nat', 'filter'];
const MONITOR_PERIOD_MS = 60_000;
const MARTIAN_RULE = ['-m', 'comment', '--comment', 'block incoming localnet connections', '--dst', '127.0.0.0/8', '!', '--src', '127.0.0.0/8',
  '-m', 'conntrack', '!', '--ctstate', 'RELATED,ESTABLISHED,DNAT', '-j', 'DROP'];

type RunResult = { status: number | null; stderr: string };
type Run = (bin: string, args: string[]) => RunResult | Promise<RunResult>;
// Asynchronous, so the dozen calls run beside the agent's start instead of holding it (~300 ms here).
const runIptables: Run = (bin, args) =>
  new Promise((resolve) => {
    execFile(bin, ['-w', '5', ...args], { encoding: 'utf8' }, (err, _stdout, stderr) => {
      const code = (err as (Error & { code?: unknown }) | null)?.code;
      if (err && typeof code !== 'number') resolve({ status: null, stderr: err.message });
      else resolve({ status: typeof code === 'number' ? code : 0, stderr });
    });
  });

class IptablesFamily {
  constructor(readonly bin: string, readonly ipv6: boolean, private readonly run: Run) {}

  async available(): Promise<boolean> {
    return (await this.run(this.bin, ['-t', 'filter', '-S', 'INPUT'])).status === 0;
  }

  async hasChain(table: string, chain: string): Promise<boolean> {
    return (await this.run(this.bin, ['-t', table, '-S', chain])).status === 0;
  }

  async ensureChain(table: string, chain: string): Promise<void> {
    if (await this.hasChain(table, chain)) return;
    const r = await this.run(this.bin, ['-t', table, '-N', chain]);
    if (r.status !== 0 && !/already exists/i.test(r.stderr)) throw new Error(`error creating chain "${chain}": ${r.stderr.trim()}`);
  }

  async ensureRule(prepend: boolean, table: string, chain: string, rule: string[]): Promise<void> {
    if ((await this.run(this.bin, ['-t', table, '-C', chain, ...rule])).status === 0) return;
    const r = await this.run(this.bin, ['-t', table, prepend ? '-I' : '-A', chain, ...rule]);
    if (r.status !== 0) throw new Error(`error ensuring rule in chain "${chain}": ${r.stderr.trim()}`);
  }

  /** syncIPTablesRules: false (logged) when a step fails. */
  async sync(log: LogFn): Promise<boolean> {
    try {
      await this.ensureChain('mangle', HINT);
      if (!this.ipv6) {
        await this.ensureChain('filter', FIREWALL);
        for (const chain of ['OUTPUT', 'INPUT']) await this.ensureRule(true, 'filter', chain, ['-j', FIREWALL]);
        await this.ensureRule(false, 'filter', FIREWALL, MARTIAN_RULE);
      }
      for (const table of CANARY_TABLES) await this.ensureChain(table, CANARY);
      return true;
    } catch (e) {
      log(logLine('Failed to initialize iptables rules; some functionality may be missing.', { protocol: this.ipv6 ? 'IPv6' : 'IPv4' }, { severity: 'E', err: (e as Error).message }));
      return false;
    }
  }
}

export interface NetworkUtil {
  /** Resolves once the chains are made (or there is no iptables); the canary monitor runs from then on. */
  ready: Promise<void>;
  stop(): void;
}

/** Sets the chains up in the background and then starts the canary monitor. */
export function initNetworkUtil(log: LogFn, run: Run = runIptables, periodMs = MONITOR_PERIOD_MS): NetworkUtil {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const ready = (async () => {
    const families: IptablesFamily[] = [];
    for (const f of [new IptablesFamily('iptables', false, run), new IptablesFamily('ip6tables', true, run)]) if (await f.available()) families.push(f);
    if (families.length === 0) {
      log(logLine('No iptables support on this system; not creating the KUBE-IPTABLES-HINT chain'));
      return;
    }
    const monitored: IptablesFamily[] = [];
    for (const f of families) {
      if (!(await f.sync(log))) continue;
      log(logLine('Initialized iptables rules.', { protocol: f.ipv6 ? 'IPv6' : 'IPv4' }));
      monitored.push(f);
    }
    if (stopped) return;
    let checking = false;
    timer = setInterval(() => {
      if (checking) return;
      checking = true;
      void (async () => {
        for (const f of monitored) {
          let intact = true;
          for (const t of CANARY_TABLES) if (!(await f.hasChain(t, CANARY))) intact = false;
          if (intact) continue;
          log(logLine('iptables canary deleted, re-creating the rules', { protocol: f.ipv6 ? 'IPv6' : 'IPv4' }));
          await f.sync(log);
        }
      })().finally(() => (checking = false));
    }, periodMs);
    timer.unref();
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
