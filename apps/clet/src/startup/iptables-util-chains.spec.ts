// --make-iptables-util-chains against an in-memory iptables (the host's tables are not touched by tests):
// the chains and rules upstream's initNetworkUtil makes, idempotence, and the canary monitor re-creating
// everything after a flush.
import { CANARY, initNetworkUtil } from './iptables-util-chains';

/** A tiny iptables: tables of chains of rule strings, per binary; `missing` binaries do not exist. */
function fakeIptables(missing: string[] = []) {
  const state = new Map<string, Map<string, string[]>>();
  const calls: string[] = [];
  const table = (bin: string, t: string) => {
    const key = `${bin}/${t}`;
    if (!state.has(key)) state.set(key, new Map([['INPUT', []], ['OUTPUT', []], ['PREROUTING', []], ['POSTROUTING', []], ['FORWARD', []]]));
    return state.get(key)!;
  };
  const run = (bin: string, args: string[]) => {
    if (missing.includes(bin)) return { status: null, stderr: 'ENOENT' };
    const [, t, op, chain, ...rule] = args; // -t <table> <op> <chain> <rule...>
    const chains = table(bin, t);
    const r = rule.join(' ');
    if (op !== '-S') calls.push(`${bin} -t ${t} ${op} ${chain}${r ? ' ' + r : ''}`);
    const has = chains.has(chain);
    switch (op) {
      case '-S': return { status: has ? 0 : 1, stderr: has ? '' : 'No chain/target/match by that name.' };
      case '-N': if (has) return { status: 1, stderr: 'iptables: Chain already exists.' }; chains.set(chain, []); return { status: 0, stderr: '' };
      case '-C': return { status: has && chains.get(chain)!.includes(r) ? 0 : 1, stderr: '' };
      case '-I': chains.get(chain)!.unshift(r); return { status: 0, stderr: '' };
      case '-A': chains.get(chain)!.push(r); return { status: 0, stderr: '' };
      default: return { status: 2, stderr: 'unknown' };
    }
  };
  return { run, calls, chains: (bin: string, t: string) => table(bin, t) };
}

const MARTIAN = '-m comment --comment block incoming localnet connections --dst 127.0.0.0/8 ! --src 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP';

/** Sets up and waits until done, then stops the monitor. */
async function setUp(log: (e: unknown) => void, run: ReturnType<typeof fakeIptables>['run']) {
  const u = initNetworkUtil(log, run);
  await u.ready;
  u.stop();
}

test('the hint, firewall and canary chains are made once, for each family present', async () => {
  const ipt = fakeIptables();
  const logs: unknown[] = [];
  await setUp((e) => logs.push(e), ipt.run);
  expect(ipt.chains('iptables', 'mangle').has('KUBE-IPTABLES-HINT')).toBe(true);
  expect(ipt.chains('ip6tables', 'mangle').has('KUBE-IPTABLES-HINT')).toBe(true);
  expect(ipt.chains('iptables', 'filter').get('INPUT')).toEqual(['-j KUBE-FIREWALL']);
  expect(ipt.chains('iptables', 'filter').get('OUTPUT')).toEqual(['-j KUBE-FIREWALL']);
  expect(ipt.chains('iptables', 'filter').get('KUBE-FIREWALL')).toEqual([MARTIAN]);
  // IPv6 has no martian problem: no firewall chain there, as upstream
  expect(ipt.chains('ip6tables', 'filter').has('KUBE-FIREWALL')).toBe(false);
  for (const bin of ['iptables', 'ip6tables']) for (const t of ['mangle', 'nat', 'filter']) expect(ipt.chains(bin, t).has(CANARY)).toBe(true);
  expect(logs).toEqual([expect.objectContaining({ msg: 'Initialized iptables rules.', kv: { protocol: 'IPv4' } }), expect.objectContaining({ msg: 'Initialized iptables rules.', kv: { protocol: 'IPv6' } })]);

  // a second start changes nothing
  const before = ipt.calls.length;
  await setUp(() => undefined, ipt.run);
  expect(ipt.calls.slice(before).filter((c) => !c.includes(' -C '))).toEqual([]);
});

test('without iptables nothing is made, and that is logged', async () => {
  const ipt = fakeIptables(['iptables', 'ip6tables']);
  const logs: unknown[] = [];
  await setUp((e) => logs.push(e), ipt.run);
  expect(ipt.calls).toEqual([]);
  expect(logs).toEqual([expect.objectContaining({ msg: 'No iptables support on this system; not creating the KUBE-IPTABLES-HINT chain' })]);
});

test('the monitor re-creates everything when the canary is flushed away', async () => {
  const ipt = fakeIptables(['ip6tables']);
  const u = initNetworkUtil(() => undefined, ipt.run, 20);
  await u.ready;
  try {
    ipt.chains('iptables', 'nat').delete(CANARY);
    ipt.chains('iptables', 'filter').delete('KUBE-FIREWALL');
    ipt.chains('iptables', 'filter').set('INPUT', []);
    for (let i = 0; i < 100 && !ipt.chains('iptables', 'nat').has(CANARY); i++) await new Promise((r) => setTimeout(r, 20));
    expect(ipt.chains('iptables', 'nat').has(CANARY)).toBe(true);
    expect(ipt.chains('iptables', 'filter').get('INPUT')).toEqual(['-j KUBE-FIREWALL']);
    expect(ipt.chains('iptables', 'filter').get('KUBE-FIREWALL')).toEqual([MARTIAN]);
  } finally {
    u.stop();
  }
});
