// The built clet binary as a user meets it: help and version, each kind of bad input ending with its
// message and exit 1 before anything is bound (the full message tables are in src/resolve.spec.ts),
// start-up checks, config files, and the lock file.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startContainerd, type PrivateContainerd } from '../../../tools/containerd/harness';
import { freePort, get, isListening, runClet, startClet, type CletProcess } from './clet-harness';

jest.setTimeout(120_000);

let tmp: string;
let ctd: PrivateContainerd;
let port: number;
let hz: number;
const running: CletProcess[] = [];

const upstreamKind = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function file(name: string, text: string): string {
  const p = join(tmp, name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

/** A valid standalone command line on free ports; `--fail-cgroupv1=false` because this host is cgroup v1. */
function args(name: string, extra: string[] = []): string[] {
  return [
    '--fail-cgroupv1=false',
    '--fail-swap-on=false',
    `--root-dir=${join(tmp, name, 'root')}`,
    `--cert-dir=${join(tmp, name, 'pki')}`,
    `--container-runtime-endpoint=${ctd.endpoint}`,
    '--hostname-override=node1',
    '--address=127.0.0.1',
    `--port=${port}`,
    '--read-only-port=0',
    `--healthz-port=${hz}`,
    ...extra,
  ];
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'clet-cli-'));
  ctd = await startContainerd();
  port = await freePort();
  hz = await freePort();
});

afterAll(async () => {
  for (const p of running) await p.stop();
  await ctd?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('help and version', () => {
  test.each([['--help'], ['-h']])('%s prints the flags grouped, exit 0', async (flag) => {
    const r = await runClet([flag]);
    // The whole result on failure shows stderr too.
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.startsWith('The clet is the primary "node agent" that runs on each\nnode.')).toBe(true);
    expect(r.stdout).toContain('\n\nUsage:\n  clet [flags]\n\n');
    for (const section of ['General and registration:', 'Serving, authentication and authorization:', 'API client, runtime, images and logging:', 'Resources, cgroups, policies, eviction, networking:', 'Feature gates:']) {
      expect(r.stdout).toContain(`\n${section}\n`);
    }
    expect(r.stdout).toMatch(/\n {6}--address ip +The IP address .* \(default 0\.0\.0\.0\) \(DEPRECATED: This parameter should be set via the config file/);
    expect(r.stdout).toMatch(/\n {6}--max-pods int32 +Number of Pods that can run on this Clet\. \(default 110\)/);
    expect(r.stdout).toMatch(/\n {6}--sync-frequency duration +.*\(default 1m0s\)/);
    expect(r.stdout).toMatch(/\n {2}-h, --help +help for clet\n/);
    expect(r.stdout).toMatch(/\n {6}--seccomp-default RuntimeDefault +/);
    expect(r.stdout).toMatch(/\n {6}--fail-cgroupv1 +Prevent the clet from starting on the host using cgroup v1\. \(default true\)\n/);
    expect(r.stdout).toContain('CletFineGrainedAuthz=true|false (ALPHA - default=false)');
    expect(r.stdout).toContain('AllBeta=true|false (BETA - default=false)');
  });

  test('--version prints the version and exits 0', async () => {
    expect(await runClet(['--version'])).toMatchObject({ code: 0, stdout: 'cl v1.33.0\n' });
    const raw = await runClet(['--version=raw']);
    expect(raw.code).toBe(0);
    expect(raw.stdout.startsWith('version.Info{Major:"1", Minor:"33", GitVersion:"v1.33.0"')).toBe(true);
  });

  test('the build leaves a code cache this Node accepts, so the agent starts without compiling its bundle', () => {
    // tools/bundle.js: dist/main.js compiles dist/main.bundle.js with dist/main.bundle.cache; a cache V8 rejects
    // (another Node, other V8 flags) still runs, only slower, so this is the check that the start-up saving holds.
    const dist = join(__dirname, '..', 'dist');
    const probe = `const { Script } = require('node:vm'); const { readFileSync } = require('node:fs'); const { wrap } = require('node:module');
      const s = new Script(wrap(readFileSync(${JSON.stringify(join(dist, 'main.bundle.js'))}, 'utf8').replace(/^#!/, '//')), { filename: ${JSON.stringify(join(dist, 'main.bundle.js'))}, cachedData: readFileSync(${JSON.stringify(join(dist, 'main.bundle.cache'))}) });
      process.stdout.write(String(s.cachedDataRejected));`;
    expect(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' })).toBe('false');
  });

  test('--version=vX.Y.Z-suffix sets the reported version and starts', async () => {
    const p = await startClet(args('version', ['--version=v1.33.0-custom']));
    running.push(p);
    expect(p.stderr()).toContain('version="v1.33.0-custom"');
    expect(await p.stop()).toBe(0);
  });
});

describe('bad input: its message, exit 1, nothing bound', () => {
  const cases: Array<[string, () => string[], string]> = [
    ['unknown flag', () => ['--no-such-flag'], '"command failed" err="failed to parse clet flag: unknown flag: --no-such-flag"'],
    ['positional argument', () => ['extra-arg'], 'unknown command extra-arg'],
    ['bool with a separate value', () => ['--fail-swap-on', 'false'], 'unknown command false'],
    ['int32', () => ['--max-pods=abc'], 'invalid argument \\"abc\\" for \\"--max-pods\\" flag: strconv.ParseInt: parsing \\"abc\\": invalid syntax'],
    ['unknown feature gate', () => ['--feature-gates=NoSuchGate=true'], 'failed to set feature gates from initial flags-based config: unrecognized feature gate: NoSuchGate'],
    ['node label namespace', () => ['--node-labels=node-role.cl.io/worker='], "failed to validate clet flags: unknown 'cl.io' or 'k8s.io' labels specified with --node-labels: [node-role.cl.io/worker]"],
    ['taint', () => ['--register-with-taints=x:Never'], 'invalid taint effect: Never, unsupported taint effect'],
    ['range', () => ['--oom-score-adj=-5000'], 'failed to validate clet configuration, error: invalid configuration: oomScoreAdj (--oom-score-adj) -5000 must be between -1000 and 1000, inclusive, path: &TypeMeta{Kind:,APIVersion:,}'],
    ['eviction threshold', () => ['--eviction-hard=memory.available<0'], 'invalid configuration: eviction threshold memory.available must be positive: 0'],
    ['TLS version', () => ['--tls-min-version=VersionTLS99'], 'failed to construct clet dependencies: unknown tls version \\"VersionTLS99\\"'],
    ['cipher suite', () => ['--tls-cipher-suites=TLS_FOO'], "failed to construct clet dependencies: Cipher suite TLS_FOO not supported or doesn't exist"],
    ['lock contention without a lock file', () => ['--exit-on-lock-contention'], 'failed to run Clet: cannot exit on lock file contention: no lock file specified'],
    ['empty hostname', () => ['--hostname-override= '], 'failed to run Clet: empty hostname is invalid'],
    ['webhook authorization standalone', () => ['--authorization-mode=Webhook'], 'failed to run Clet: no client provided, cannot use webhook authorization'],
    ['webhook authentication standalone', () => ['--authentication-token-webhook'], 'failed to run Clet: no client provided, cannot use webhook authentication'],
    ['unknown authorization mode', () => ['--authorization-mode=Foo'], 'failed to run Clet: unknown authorization mode Foo'],
    ['missing config file', () => ['--config=/nonexistent.yaml'], 'failed to load clet config file, path: /nonexistent.yaml, error: failed to load Clet config file /nonexistent.yaml, error failed to read clet config file \\"/nonexistent.yaml\\", error: open /nonexistent.yaml: no such file or directory'],
    ['config value', () => [`--config=${file('badval.yaml', `${upstreamKind}failSwapOn: false\noomScoreAdj: 5000\nimageGCHighThresholdPercent: 101\n`)}`, '--authorization-mode=AlwaysAllow'], 'error: [invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive, invalid configuration: oomScoreAdj (--oom-score-adj) 5000 must be between -1000 and 1000, inclusive]'],
    ['missing drop-in dir', () => ['--config-dir=/missing'], 'failed to merge clet configs: failed to walk through clet dropin directory \\"/missing\\": lstat /missing: no such file or directory'],
    ['corrupt drop-in', () => {
      file('dropins/10-ok.conf', `${upstreamKind}maxPods: 20\n`);
      file('dropins/20-corrupt.conf', `${upstreamKind}maxPods: {{{\n`);
      return [`--config-dir=${join(tmp, 'dropins')}`];
    }, `failed to load clet dropin file, path: ${'$TMP'}/dropins/20-corrupt.conf, error: failed to decode:`],
    ['drop-in value type', () => [`--config-dir=${join(tmp, 'dropins2')}`, file('dropins2/10-type.conf', `${upstreamKind}maxPods: lots\n`) && '--v=0'], `failed to load clet dropin file, path: ${'$TMP'}/dropins2/10-type.conf, error: failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32`],
  ];
  test.each(cases)('%s', async (_name, extra, message) => {
    const r = await runClet(args('bad', extra()));
    expect(r).toMatchObject({ code: 1 });
    expect(r.stderr).toContain(message.replace('$TMP', tmp));
    expect(r.stderr).not.toContain('Started');
    expect(await isListening(port)).toBe(false);
    expect(await isListening(hz)).toBe(false);
  });

  test('every problem of one command line is reported at once', async () => {
    const r = await runClet(args('many', ['--node-labels=cl.io/x=1', '--max-pods=-1', '--port=0', '--tls-min-version=X']));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown 'cl.io' or 'k8s.io' labels");
    expect(r.stderr).toContain('[invalid configuration: maxPods (--max-pods) -1 must not be a negative number, invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive]');
    expect(r.stderr).toContain('unknown tls version \\"X\\"');
  });
});

describe('start-up checks', () => {
  test('--fail-cgroupv1 defaults to true: a cgroup v1 host is refused with a clear message', async () => {
    // A plain directory is not a cgroup2 mount, so it reads as a cgroup v1 host whatever this machine is.
    const fakeCgroup = mkdtempSync(join(tmp, 'cgroup-'));
    // The v1 hierarchies the agent makes the pods' cgroups in (here plain directories).
    for (const s of ['cpu', 'cpuacct', 'memory', 'pids']) mkdirSync(join(fakeCgroup, s));
    const base = args('cgv1').filter((a) => a !== '--fail-cgroupv1=false');
    const r = await runClet(base, { CLET_TEST_SYS_FS_CGROUP: fakeCgroup });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '"command failed" err="failed to validate clet configuration, error: clet is configured to not run on a host using cgroup v1. cgroup v1 support is in maintenance mode, path: &TypeMeta{Kind:,APIVersion:,}"',
    );
    const ok = await startClet([...base, '--fail-cgroupv1=false'], { CLET_TEST_SYS_FS_CGROUP: fakeCgroup });
    running.push(ok);
    expect(ok.stderr()).toContain('cgroup v1 support is in maintenance mode, please migrate to cgroup v2');
    expect(await ok.stop()).toBe(0);
  });

  test('--fail-swap-on refuses a host with swap; a header-only /proc/swaps is fine', async () => {
    const swaps = file('swaps', 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/dm-1                               partition\t16760828\t0\t-2\n');
    const base = args('swap').filter((a) => a !== '--fail-swap-on=false');
    const r = await runClet(base, { CLET_TEST_PROC_SWAPS: swaps });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('failed to run Clet: running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false. /proc/swaps contained: [Filename');
    expect(r.stderr).toContain('/dev/dm-1');
    expect(await isListening(port)).toBe(false);
    const headerOnly = file('swaps-empty', 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n');
    const ok = await startClet(base, { CLET_TEST_PROC_SWAPS: headerOnly });
    running.push(ok);
    expect(ok.stderr()).toContain('"Started clet"');
    expect(await ok.stop()).toBe(0);
  });

  test('--protect-kernel-defaults refuses differing kernel tunables', async () => {
    const sys = join(tmp, 'sys');
    file('sys/vm/overcommit_memory', '0\n');
    file('sys/vm/panic_on_oom', '0\n');
    file('sys/kernel/panic', '10\n');
    const r = await runClet(args('kernel', ['--protect-kernel-defaults']), { CLET_TEST_PROC_SYS: sys });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('failed to run Clet: invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0');
  });

  test('--root-dir and --cert-dir are created', async () => {
    const p = await startClet(args('dirs/deep'));
    running.push(p);
    expect(await isListening(port)).toBe(true);
    expect(await p.stop()).toBe(0);
    expect(require('node:fs').existsSync(join(tmp, 'dirs/deep/root'))).toBe(true);
    expect(require('node:fs').existsSync(join(tmp, 'dirs/deep/pki/clet.crt'))).toBe(true);
  });

  test('--lock-file with --exit-on-lock-contention: the holder exits 0 when another agent wants the lock', async () => {
    const lock = join(tmp, 'clet.lock');
    const a = await startClet(args('lock-a', [`--lock-file=${lock}`, '--exit-on-lock-contention']));
    running.push(a);
    expect(a.stderr()).toContain('"Started clet"');
    const port2 = await freePort();
    const hz2 = await freePort();
    const bArgs = args('lock-b', [`--lock-file=${lock}`, `--port=${port2}`, `--healthz-port=${hz2}`]);
    const bStarting = startClet(bArgs);
    expect(await a.exited).toBe(0);
    const b = await bStarting;
    running.push(b);
    expect(b.stderr()).toContain('"Started clet"');
    expect((await get(`http://127.0.0.1:${hz2}/healthz`)).body).toBe('ok');
    expect(await b.stop()).toBe(0);
  });
});

describe('config file and drop-ins end to end', () => {
  test('file defaults (no read-only server), drop-ins, then explicit flags, visible on /configz', async () => {
    const ro = await freePort();
    const c0 = file('c0/config.yaml', `${upstreamKind}authentication:\n  anonymous: {enabled: true}\n  webhook: {enabled: false}\nauthorization: {mode: AlwaysAllow}\nfailSwapOn: false\nfailCgroupV1: false\nmaxPods: 10\nstaticPodPath: manifests\n`);
    file('c0/d/10-a.conf', `${upstreamKind}maxPods: 20\n`);
    file('c0/d/20-b.conf', `${upstreamKind}maxPods: 30\npodsPerCore: 3\n`);
    const base = args('cfg').filter((a) => !a.startsWith('--fail-') && !a.startsWith('--read-only-port'));
    const p = await startClet([...base, `--config=${c0}`, `--config-dir=${join(tmp, 'c0/d')}`, '--max-pods=50']);
    running.push(p);
    expect(p.stderr()).toContain('"Started clet"');
    const cfg = JSON.parse((await get(`https://127.0.0.1:${port}/configz`)).body).kubeletconfig;
    expect(cfg).toMatchObject({ maxPods: 50, podsPerCore: 3, readOnlyPort: 0, staticPodPath: join(tmp, 'c0/manifests') });
    expect(await isListening(ro)).toBe(false);
    expect(await p.stop()).toBe(0);
  });

  test('the own kind clet.config.cl.io/v1beta1 loads and is strict', async () => {
    const own = 'apiVersion: clet.config.cl.io/v1beta1\nkind: CletConfiguration\n';
    const good = file('own/good.yaml', `${own}authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}\nauthorization: {mode: AlwaysAllow}\nmaxPods: 7\n`);
    const p = await startClet([...args('own'), `--config=${good}`]);
    running.push(p);
    expect(JSON.parse((await get(`https://127.0.0.1:${port}/configz`)).body).kubeletconfig.maxPods).toBe(7);
    expect(await p.stop()).toBe(0);
    const bad = file('own/bad.yaml', `${own}maxPod: 7\n`);
    const r = await runClet([...args('own'), `--config=${bad}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('failed to decode: strict decoding error: unknown field \\"maxPod\\"');
  });
});
