// --make-iptables-util-chains (default true), as upstream's initNetworkUtil: for each iptables family on the
// host, the KUBE-IPTABLES-HINT chain in mangle (tells other components which iptables backend is in use),
// for IPv4 the KUBE-FIREWALL chain jumped to from INPUT and OUTPUT with the rule that drops martian packets
// to 127.0.0.0/8 (route_localnet protection), and KUBE-KUBELET-CANARY chains in mangle, nat and filter that are
// checked every minute: when someone flushes the tables, the canary is gone and everything is made again.
// The chain names are upstream's, because other components look for them by name. Every step is idempotent.
import { spawnSync } from 'node:child_process';
import { logLine, type LogFn } from '../log';

const HINT = 'KUBE-IPTABLES-HINT';
const FIREWALL = 'KUBE-FIREWALL';
export const CANARY = 'KUBE-KUBELET-CANARY';
const CANARY_TABLES = ['mangle', 'nat', 'filter'];
const MONITOR_PERIOD_MS = 60_000;
const MARTIAN_RULE = ['-m', 'comment', '--comment', 'block incoming localnet connections', '--dst', '127.0.0.0/8', '!', '--src', '127.0.0.0/8',
  '-m', 'conntrack', '!', '--ctstate', 'RELATED,ESTABLISHED,DNAT', '-j', 'DROP'];

type Run = (bin: string, args: string[]) => { status: number | null; stderr: string };
const runIptables: Run = (bin, args) => {
  const r = spawnSync(bin, ['-w', '5', ...args], { encoding: 'utf8' });
  return { status: r.error ? null : r.status, stderr: r.error ? r.error.message : r.stderr };
};

class IptablesFamily {
  constructor(readonly bin: string, readonly ipv6: boolean, private readonly run: Run) {}

  available(): boolean {
    return this.run(this.bin, ['-t', 'filter', '-S', 'INPUT']).status === 0;
  }

  hasChain(table: string, chain: string): boolean {
    return this.run(this.bin, ['-t', table, '-S', chain]).status === 0;
  }

  ensureChain(table: string, chain: string): void {
    if (this.hasChain(table, chain)) return;
    const r = this.run(this.bin, ['-t', table, '-N', chain]);
    if (r.status !== 0 && !/already exists/i.test(r.stderr)) throw new Error(`error creating chain "${chain}": ${r.stderr.trim()}`);
  }

  ensureRule(prepend: boolean, table: string, chain: string, rule: string[]): void {
    if (this.run(this.bin, ['-t', table, '-C', chain, ...rule]).status === 0) return;
    const r = this.run(this.bin, ['-t', table, prepend ? '-I' : '-A', chain, ...rule]);
    if (r.status !== 0) throw new Error(`error ensuring rule in chain "${chain}": ${r.stderr.trim()}`);
  }

  /** syncIPTablesRules: false (logged) when a step fails. */
  sync(log: LogFn): boolean {
    try {
      this.ensureChain('mangle', HINT);
      if (!this.ipv6) {
        this.ensureChain('filter', FIREWALL);
        for (const chain of ['OUTPUT', 'INPUT']) this.ensureRule(true, 'filter', chain, ['-j', FIREWALL]);
        this.ensureRule(false, 'filter', FIREWALL, MARTIAN_RULE);
      }
      for (const table of CANARY_TABLES) this.ensureChain(table, CANARY);
      return true;
    } catch (e) {
      log(logLine('Failed to initialize iptables rules; some functionality may be missing.', { protocol: this.ipv6 ? 'IPv6' : 'IPv4' }, { severity: 'E', err: (e as Error).message }));
      return false;
    }
  }
}

/** Sets the chains up and starts the canary monitor; returns its stop function. */
export function initNetworkUtil(log: LogFn, run: Run = runIptables, periodMs = MONITOR_PERIOD_MS): () => void {
  const families = [new IptablesFamily('iptables', false, run), new IptablesFamily('ip6tables', true, run)].filter((f) => f.available());
  if (families.length === 0) {
    log(logLine('No iptables support on this system; not creating the KUBE-IPTABLES-HINT chain'));
    return () => undefined;
  }
  const monitored = families.filter((f) => {
    const ok = f.sync(log);
    if (ok) log(logLine('Initialized iptables rules.', { protocol: f.ipv6 ? 'IPv6' : 'IPv4' }));
    return ok;
  });
  const timer = setInterval(() => {
    for (const f of monitored) {
      if (CANARY_TABLES.every((t) => f.hasChain(t, CANARY))) continue;
      log(logLine('iptables canary deleted, re-creating the rules', { protocol: f.ipv6 ? 'IPv6' : 'IPv4' }));
      f.sync(log);
    }
  }, periodMs);
  timer.unref();
  return () => clearInterval(timer);
}
