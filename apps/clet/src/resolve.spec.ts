import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve, type Outcome } from './resolve';
import type { CletConfiguration } from './config/types';
import type { LogEntry } from './log';

const env = { log: () => undefined, cgroupV1: false };
const base = ['--fail-swap-on=false'];

function errorsOf(o: Outcome): string[] {
  return o.kind === 'errors' ? o.errors : [];
}
function configOf(o: Outcome): CletConfiguration {
  if (o.kind !== 'run') throw new Error(`expected a configuration, got ${JSON.stringify(errorsOf(o))}`);
  return o.resolved.config;
}

describe('command line parsing', () => {
  const cases: Array<[string, string[], (c: CletConfiguration) => unknown, unknown]> = [
    ['--flag=value', ['--max-pods=5'], (c) => c.maxPods, 5],
    ['--flag value', ['--max-pods', '6'], (c) => c.maxPods, 6],
    ['underscores as dashes', ['--max_pods=7'], (c) => c.maxPods, 7],
    ['int32 base prefixes', ['--max-pods=0x10'], (c) => c.maxPods, 16],
    ['bool alone', ['--protect-kernel-defaults'], (c) => c.protectKernelDefaults, true],
    ['bool =false', ['--enable-server=false'], (c) => c.enableServer, false],
    ['Go durations become Go strings', ['--sync-frequency=90s'], (c) => c.syncFrequency, '1m30s'],
    ['nested config path', ['--authentication-token-webhook-cache-ttl=1m'], (c) => c.authentication.webhook.cacheTTL, '1m0s'],
    ['repeated slices append', ['--cluster-dns=10.0.0.1', '--cluster-dns=10.0.0.2,10.0.0.3'], (c) => c.clusterDNS, ['10.0.0.1', '10.0.0.2', '10.0.0.3']],
    ['eviction map', ['--eviction-hard=memory.available<1Gi'], (c) => c.evictionHard, { 'memory.available': '1Gi' }],
    ['header multimap', ['--manifest-url-header=a:1,b:2', '--manifest-url-header=b:3'], (c) => c.staticPodURLHeader, { a: ['1'], b: ['2', '3'] }],
    ['taints', ['--register-with-taints=dedicated=x:NoSchedule,gpu:NoExecute'], (c) => c.registerWithTaints, [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }, { key: 'gpu', effect: 'NoExecute' }]],
    ['-v', ['-v', '4'], (c) => c.logging.verbosity, 4],
    ['--v=', ['--v=2'], (c) => c.logging.verbosity, 2],
    ['feature gates', ['--feature-gates=AllAlpha=true,NodeSwap=false'], (c) => c.featureGates, { AllAlpha: true, NodeSwap: false }],
    ['flag defaults', [], (c) => [c.readOnlyPort, c.authorization.mode, c.authentication.anonymous.enabled, c.authentication.webhook.enabled], [10255, 'AlwaysAllow', true, false]],
    ['spec default of --fail-cgroupv1 is true', [], (c) => c.failCgroupV1, true],
    ['eviction default', [], (c) => c.evictionHard, { 'imagefs.available': '15%', 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%' }],
  ];
  test.each(cases)('%s', (_n, argv, pick, want) => {
    expect(pick(configOf(resolve([...base, ...argv], env)))).toEqual(want);
  });

  test('command-line-only flags and explicit set', () => {
    const o = resolve([...base, '--root-dir=/r', '--node-labels=a=1,b', '--hostname-override=Node1'], env);
    if (o.kind !== 'run') throw new Error('expected run');
    expect(o.resolved.flags).toMatchObject({ rootDir: '/r', nodeLabels: { a: '1', b: '' }, hostnameOverride: 'Node1', certDir: '/var/lib/clet/pki' });
    expect([...o.resolved.cmd.parsed.explicit].sort()).toEqual(['fail-swap-on', 'hostname-override', 'node-labels', 'root-dir']);
  });

  test('help and version stop before validation', () => {
    expect(resolve(['--help', '--port=0'], env).kind).toBe('help');
    expect(resolve(['-h'], env).kind).toBe('help');
    expect(resolve(['--version', '--port=0'], env).kind).toBe('version');
    expect(resolve(['--version=raw'], env).kind).toBe('version');
    expect(resolve([...base, '--version=v1.33.0-custom'], env).kind).toBe('run');
  });

  test('[C] flags warn with the --config deprecation', () => {
    const o = resolve([...base, '--max-pods=50'], env);
    expect(o.kind === 'run' && o.resolved.cmd.parsed.warnings).toContain(
      "Flag --max-pods has been deprecated, This parameter should be set via the config file specified by the Clet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.",
    );
  });
});

describe('every bad flag is an error with upstream words', () => {
  const cases: Array<[string[], string[]]> = [
    [['--no-such-flag'], ['failed to parse clet flag: unknown flag: --no-such-flag']],
    [['extra-arg'], ['unknown command extra-arg']],
    [['--fail-swap-on', 'false'], ['unknown command false']],
    [['--max-pods=abc', '--sync-frequency=10'], [
      'failed to parse clet flag: invalid argument "abc" for "--max-pods" flag: strconv.ParseInt: parsing "abc": invalid syntax',
      'failed to parse clet flag: invalid argument "10" for "--sync-frequency" flag: time: missing unit in duration "10"',
    ]],
    [['--max-pods=99999999999'], ['failed to parse clet flag: invalid argument "99999999999" for "--max-pods" flag: strconv.ParseInt: parsing "99999999999": value out of range']],
    [['--fail-swap-on=yes'], ['failed to parse clet flag: invalid argument "yes" for "--fail-swap-on" flag: strconv.ParseBool: parsing "yes": invalid syntax']],
    [['--address=abc'], ['failed to parse clet flag: invalid argument "abc" for "--address" flag: "abc" is not a valid IP address']],
    [['--feature-gates=Foo'], ['failed to parse clet flag: invalid argument "Foo" for "--feature-gates" flag: malformed pair, expect string=bool']],
    [['--feature-gates=NoSuchGate=true'], ['failed to set feature gates from initial flags-based config: unrecognized feature gate: NoSuchGate']],
    [['--register-with-taints=a=b:Sometimes'], ['failed to parse clet flag: invalid argument "a=b:Sometimes" for "--register-with-taints" flag: invalid taint effect: Sometimes, unsupported taint effect']],
    [['--register-with-taints=a=b'], ['failed to parse clet flag: invalid argument "a=b" for "--register-with-taints" flag: invalid taint spec: a=b']],
    [['--version=v1.34.0'], ['failed to parse clet flag: invalid argument "v1.34.0" for "--version" flag: version "v1.34.0" must match major/minor/patch of default version "v1.33.0"']],
    [['--exit-on-lock-contention'], ['failed to run Clet: cannot exit on lock file contention: no lock file specified']],
    [['--tls-min-version=VersionTLS99', '--tls-cipher-suites=TLS_NOPE'], [
      'failed to construct clet dependencies: unknown tls version "VersionTLS99"',
      "failed to construct clet dependencies: Cipher suite TLS_NOPE not supported or doesn't exist",
    ]],
    [['--client-ca-file=/no/such/ca.pem'], ['failed to construct clet dependencies: unable to load client CA file /no/such/ca.pem: open /no/such/ca.pem: no such file or directory']],
  ];
  test.each(cases)('%j', (argv, want) => expect(errorsOf(resolve([...base, ...argv], env))).toEqual(want));
});

describe('--node-labels', () => {
  const allowedSet =
    'beta.cl.io/arch, beta.cl.io/instance-type, beta.cl.io/os, failure-domain.beta.cl.io/region, failure-domain.beta.cl.io/zone, cl.io/arch, cl.io/hostname, cl.io/os, node.cl.io/instance-type, topology.cl.io/region, topology.cl.io/zone';
  test.each([
    ['node-role.cl.io/worker=', `failed to validate clet flags: unknown 'cl.io' or 'k8s.io' labels specified with --node-labels: [node-role.cl.io/worker]\n--node-labels in the 'cl.io' namespace must begin with an allowed prefix (clet.cl.io, node.cl.io) or be in the specifically allowed set (${allowedSet})`],
    ['z.k8s.io/a=1,cl.io/zzz=2', `failed to validate clet flags: unknown 'cl.io' or 'k8s.io' labels specified with --node-labels: [cl.io/zzz z.k8s.io/a]\n--node-labels in the 'cl.io' namespace must begin with an allowed prefix (clet.cl.io, node.cl.io) or be in the specifically allowed set (${allowedSet})`],
    ['bad key=v', "failed to validate clet flags: invalid node labels: 'bad key' - name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
    ['k=bad value', "failed to validate clet flags: invalid node labels: 'bad value' - a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
    ['Example.com/a=1', "failed to validate clet flags: invalid node labels: 'Example.com/a' - prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    [`k=${'x'.repeat(64)}`, `failed to validate clet flags: invalid node labels: '${'x'.repeat(64)}' - must be no more than 63 characters`],
  ])('%s', (labels, msg) => expect(errorsOf(resolve([...base, `--node-labels=${labels}`], env))).toEqual([msg]));

  test('allowed prefixes and set pass', () => {
    expect(resolve([...base, '--node-labels=node.cl.io/role=x,example.com/team=a,cl.io/hostname=h,sub.clet.cl.io/a=b'], env).kind).toBe('run');
  });
});

describe('configuration validation: every message at once, upstream order', () => {
  const wrap = (msgs: string[]) =>
    `failed to validate clet configuration, error: ${msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`}, path: &TypeMeta{Kind:,APIVersion:,}`;
  const cases: Array<[string[], string[]]> = [
    [['--port=70000'], ['invalid configuration: port (--port) 70000 must be between 1 and 65535, inclusive']],
    [['--max-pods=-1', '--port=0'], ['invalid configuration: maxPods (--max-pods) -1 must not be a negative number', 'invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive']],
    [['--image-gc-low-threshold=90'], ['invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85']],
    [['--image-gc-high-threshold=101'], ['invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive']],
    [['--hairpin-mode=foo'], ['invalid configuration: option "foo" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"']],
    [['--healthz-port=70000', '--read-only-port=-5'], ['invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive', 'invalid configuration: readOnlyPort (--read-only-port) -5 must be between 0 and 65535, inclusive']],
    [['--event-qps=-1', '--event-burst=-1'], ['invalid configuration: eventBurst (--event-burst) -1 must not be a negative number', 'invalid configuration: eventRecordQPS (--event-qps) -1 must not be a negative number']],
    [['--cl-api-qps=-1', '--cl-api-burst=-2'], ['invalid configuration: kubeAPIBurst (--cl-api-burst) -2 must not be a negative number', 'invalid configuration: kubeAPIQPS (--cl-api-qps) -1 must not be a negative number']],
    [['--oom-score-adj=2000'], ['invalid configuration: oomScoreAdj (--oom-score-adj) 2000 must be between -1000 and 1000, inclusive']],
    [['--node-status-max-images=-2', '--pods-per-core=-1', '--registry-qps=-1', '--registry-burst=-1', '--max-open-files=-1'], [
      'invalid configuration: nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or greater',
      'invalid configuration: maxOpenFiles (--max-open-files) -1 must not be a negative number',
      'invalid configuration: podsPerCore (--pods-per-core) -1 must not be a negative number',
      'invalid configuration: registryBurst (--registry-burst) -1 must not be a negative number',
      'invalid configuration: registryPullQPS (--registry-qps) -1 must not be a negative number',
    ]],
    [['--cpu-cfs-quota-period=200ms'], ['invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {200ms} requires feature gate CustomCPUCFSQuotaPeriod']],
    [['--cpu-cfs-quota-period=2s', '--feature-gates=CustomCPUCFSQuotaPeriod=true'], ['invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {2s} must be between 1ms and 1sec, inclusive']],
    [['--system-cgroups=/sys'], ['invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified']],
    [['--topology-manager-policy=x', '--topology-manager-scope=y'], [
      'invalid configuration: topologyManagerPolicy (--topology-manager-policy) "x" must be one of: ["none" "best-effort" "restricted" "single-numa-node"]',
      'invalid configuration: topologyManagerScope (--topology-manager-scope) "y" must be one of: "container", or "pod"',
    ]],
    [['--enforce-node-allocatable=pods,bogus,pods'], [
      'invalid configuration: option "bogus" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "cl-reserved" or "none"',
      'invalid configuration: duplicated enforcements "pods" in enforceNodeAllocatable (--enforce-node-allocatable)',
    ]],
    [['--enforce-node-allocatable=system-reserved,cl-reserved'], [
      'invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" included in enforceNodeAllocatable (--enforce-node-allocatable)',
      'invalid configuration: kubeReservedCgroup (--cl-reserved-cgroup) must be specified when "cl-reserved" included in enforceNodeAllocatable (--enforce-node-allocatable)',
    ]],
    [['--enforce-node-allocatable=none,pods'], ['invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified']],
    [['--eviction-hard=memory.free<1Gi'], ['invalid configuration: unsupported eviction signal memory.free']],
    [['--eviction-hard=memory.available<-1Gi'], ['invalid configuration: eviction threshold memory.available must be positive: -1Gi']],
    [['--eviction-hard=nodefs.available<150%'], ['invalid configuration: eviction percentage threshold nodefs.available must be <= 100%: 150%']],
    [['--eviction-hard=memory.available<lots'], ["invalid configuration: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]],
    [['--eviction-soft=memory.available<1Gi'], ['invalid configuration: grace period must be specified for the soft eviction threshold memory.available']],
    [['--container-log-max-files=1'], ['invalid configuration: containerLogMaxFiles must be greater than 1']],
    [['--container-runtime-endpoint='], ['invalid configuration: the containerRuntimeEndpoint was not specified or empty']],
    [['--rotate-server-certificates', '--feature-gates=RotateCletServerCertificate=false'], ['invalid configuration: serverTLSBootstrap true requires feature gate RotateCletServerCertificate']],
    [['--reserved-cpus=0-x'], ['invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 0-x, error: strconv.Atoi: parsing "0-x": invalid syntax']],
  ];
  test.each(cases)('%j', (argv, msgs) => expect(errorsOf(resolve([...base, ...argv], env))).toEqual([wrap(msgs)]));

  test('cgroup v1 host refuses to start unless --fail-cgroupv1=false', () => {
    const v1 = { ...env, cgroupV1: true };
    expect(errorsOf(resolve(base, v1))).toEqual([wrap(['clet is configured to not run on a host using cgroup v1. cgroup v1 support is in maintenance mode'])]);
    expect(resolve([...base, '--fail-cgroupv1=false'], v1).kind).toBe('run');
  });

  test('logging settings', () => {
    expect(errorsOf(resolve([...base, '--logging-format=xml', '--log-json-split-stream'], env))).toEqual([
      'initialize logging: [logging.format: Unsupported value: "xml": supported values: "json", "text", logging.options.json.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled]',
    ]);
  });

  test('flag, label and configuration errors are all reported by one run', () => {
    expect(errorsOf(resolve([...base, '--node-labels=cl.io/x=1', '--port=0', '--tls-min-version=X'], env))).toHaveLength(3);
  });
});

describe('config file, drop-ins and precedence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clet-config-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, text);
    return p;
  };
  const upstream = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const own = 'apiVersion: clet.config.cl.io/v1beta1\nkind: CletConfiguration\n';
  const c0 = file('c0.yaml', `${upstream}authentication:\n  anonymous: {enabled: true}\n  webhook: {enabled: false}\nauthorization: {mode: AlwaysAllow}\nfailSwapOn: false\nstaticPodPath: manifests\nmaxPods: 10\nclusterDNS: [10.0.0.10, 10.0.0.11]\nfeatureGates: {NodeSwap: false}\n`);
  const d = join(dir, 'd');
  file('d/10-a.conf', `${upstream}maxPods: 20\n`);
  file('d/20-b.conf', `${upstream}maxPods: 30\nclusterDNS: [10.0.0.53]\n`);
  file('d/30-c.yaml', `${upstream}maxPods: 40\n`);
  file('d/15-sub/x.conf', `${upstream}podsPerCore: 3\nauthentication:\n  webhook: {cacheTTL: 60s}\n`);

  test('file defaults differ from flag defaults; relative paths resolve against the file', () => {
    const c = configOf(resolve([`--config=${c0}`], env));
    expect(c.readOnlyPort).toBe(0);
    expect(c.maxPods).toBe(10);
    expect(c.staticPodPath).toBe(join(dir, 'manifests'));
    expect(c.authentication.webhook.cacheTTL).toBe('2m0s');
  });

  test('precedence: defaults, file, drop-ins in walk order, explicit flags', () => {
    const c = configOf(resolve([`--config=${c0}`, `--config-dir=${d}`], env));
    expect([c.maxPods, c.podsPerCore, c.clusterDNS]).toEqual([30, 3, ['10.0.0.53']]);
    expect(c.authentication).toEqual({ x509: { clientCAFile: '' }, webhook: { enabled: false, cacheTTL: '1m0s' }, anonymous: { enabled: true } });
    expect(configOf(resolve([`--config=${c0}`, `--config-dir=${d}`, '--max-pods=50'], env)).maxPods).toBe(50);
    expect(configOf(resolve([`--config=${c0}`, '--max-pods=20'], env)).maxPods).toBe(20);
  });

  test('drop-ins without --config apply over the flag defaults; the environment names the directory', () => {
    const c = configOf(resolve(['--fail-swap-on=false'], { ...env, dropInDirEnv: d }));
    expect([c.maxPods, c.readOnlyPort]).toEqual([30, 10255]);
  });

  test('feature gates merge per gate, flags win', () => {
    const c = configOf(resolve([`--config=${c0}`, '--feature-gates=ContainerCheckpoint=false'], env));
    expect(c.featureGates).toEqual({ NodeSwap: false, ContainerCheckpoint: false });
  });

  test('the own kind is decoded strictly; upstream files leniently with a warning', () => {
    const lines: string[] = [];
    const lenient = file('lenient.yaml', `${upstream}failSwapOn: false\nfooBar: 1\n`);
    const log = (l: LogEntry | string) => void lines.push(typeof l === 'string' ? l : `${l.severity} ${l.msg}`);
    expect(configOf(resolve([`--config=${lenient}`, '--authorization-mode=AlwaysAllow'], { ...env, log })).failSwapOn).toBe(false);
    expect(lines.join('\n')).toContain('Using lenient decoding as strict decoding failed');
    const strict = file('strict.yaml', `${own}failSwapOn: false\nfooBar: 1\nmaxPods: 1\nmaxPods: 2\n`);
    expect(errorsOf(resolve([`--config=${strict}`], env))).toEqual([
      `failed to load clet config file, path: ${strict}, error: failed to load Clet config file ${strict}, error failed to decode: strict decoding error: unknown field "fooBar", duplicate field "maxPods"`,
    ]);
  });

  const bad: Array<[string, string, string]> = [
    ['empty', '', 'clet config file "$P" was empty'],
    ['type error', `${own}maxPods: many\n`, 'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32'],
    ['nested type error', `${own}authentication: {webhook: {enabled: "yes"}}\n`, 'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.authentication.webhook.enabled of type bool'],
    ['bad duration', `${own}syncFrequency: soon\n`, 'failed to decode: time: invalid duration "soon"'],
    ['no kind', 'apiVersion: clet.config.cl.io/v1beta1\n', `failed to decode: Object 'Kind' is missing in '{"apiVersion":"clet.config.cl.io/v1beta1"}'`],
    ['wrong kind', 'apiVersion: v1\nkind: Pod\n', 'failed to decode: no kind "Pod" is registered for version "v1"'],
  ];
  test.each(bad)('bad config file: %s', (name, text, msg) => {
    const p = file(`bad-${name.replace(/ /g, '-')}.yaml`, text);
    expect(errorsOf(resolve([`--config=${p}`], env))).toEqual([
      `failed to load clet config file, path: ${p}, error: failed to load Clet config file ${p}, error ${msg.replace('$P', p)}`,
    ]);
  });

  test('a corrupt drop-in names the file', () => {
    const bd = join(dir, 'bad-d');
    file('bad-d/10-ok.conf', `${upstream}maxPods: 20\n`);
    const broken = file('bad-d/20-broken.conf', `${upstream}maxPods: [\n`);
    const errs = errorsOf(resolve([`--config-dir=${bd}`], env));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain(`failed to merge clet configs: failed to walk through clet dropin directory "${bd}": failed to load clet dropin file, path: ${broken}, error: failed to decode: error converting YAML to JSON: yaml:`);
  });

  test('drop-ins of the own kind are strict too; upstream drop-ins drop unknown fields', () => {
    const sd = join(dir, 'strict-d');
    file('strict-d/10.conf', `${upstream}maxPods: 21\nnotAField: 1\n`);
    expect(configOf(resolve([...base, `--config-dir=${sd}`], env)).maxPods).toBe(21);
    const owned = file('strict-d/20.conf', `${own}maxPodz: 22\n`);
    expect(errorsOf(resolve([...base, `--config-dir=${sd}`], env))).toEqual([
      `failed to merge clet configs: failed to walk through clet dropin directory "${sd}": failed to load clet dropin file, path: ${owned}, error: failed to decode: strict decoding error: unknown field "maxPodz"`,
    ]);
  });

  test('validation runs on the merged result', () => {
    const vd = join(dir, 'v-d');
    file('v-d/10.conf', `${upstream}port: 70000\noomScoreAdj: 5000\n`);
    expect(errorsOf(resolve([...base, `--config-dir=${vd}`], env))).toEqual([
      'failed to validate clet configuration, error: [invalid configuration: oomScoreAdj (--oom-score-adj) 5000 must be between -1000 and 1000, inclusive, invalid configuration: port (--port) 70000 must be between 1 and 65535, inclusive], path: &TypeMeta{Kind:,APIVersion:,}',
    ]);
  });
});
