// The logging flags of the built clet, against the harness's containerd: -v and --vmodule change what is
// written, PUT /debug/flags/v changes it while running, --logging-format=json writes upstream's JSON lines, and
// split streams send info to stdout and errors to stderr.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startContainerd, type PrivateContainerd } from '../../../tools/containerd/harness';
import { waitFor } from '@cl/testing';
import { freePort, get, startClet, type CletProcess } from './clet-harness';

jest.setTimeout(120_000);

let tmp: string;
let ctd: PrivateContainerd;
const running: CletProcess[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'clet-logging-'));
  ctd = await startContainerd();
});
afterAll(async () => {
  for (const p of running) await p.stop();
  await ctd?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
async function clet(extra: string[]): Promise<CletProcess & { port: number }> {
  const dir = join(tmp, `c${++n}`);
  const port = await freePort();
  const p = await startClet([
    '--fail-cgroupv1=false',
    '--fail-swap-on=false',
    `--root-dir=${join(dir, 'root')}`,
    `--cert-dir=${join(dir, 'pki')}`,
    `--container-runtime-endpoint=${ctd.endpoint}`,
    '--address=127.0.0.1',
    `--port=${port}`,
    '--read-only-port=0',
    `--healthz-port=${await freePort()}`,
    ...extra,
  ]);
  running.push(p);
  if (p.child.exitCode !== null) throw new Error(`clet exited ${p.child.exitCode}:\n${p.stderr()}`);
  return Object.assign(p, { port });
}

const housekeeping = (s: string) => s.includes('"SyncLoop (housekeeping)"');

test('-v=4 writes the flags and the sync loop\'s lines; -v=0 writes neither', async () => {
  const quiet = await clet(['-v=0']);
  const loud = await clet(['-v=4']);
  await waitFor(() => housekeeping(loud.stderr()), 'a housekeeping line at -v=4');
  expect(loud.stderr()).toContain('"FLAG: --v=\\"4\\""');
  expect(loud.stderr()).toMatch(/"FLAG: --port=\\"\d+\\""/);
  // Two ticks at -v=4 means the quiet agent, started first, had as long to write one.
  await waitFor(() => (loud.stderr().match(/"SyncLoop \(housekeeping\)"/g) ?? []).length >= 2, 'a second housekeeping tick');
  expect(quiet.stderr()).not.toContain('FLAG: --');
  expect(housekeeping(quiet.stderr())).toBe(false);
  expect(quiet.stderr()).toContain('"Started clet"');
});

test('--vmodule raises the level of one component only', async () => {
  const p = await clet(['-v=0', '--vmodule=pod*=4']);
  await waitFor(() => housekeeping(p.stderr()), 'the pods component at level 4');
  expect(p.stderr()).not.toContain('FLAG: --'); // the clet component stays at 0
  expect(p.stderr()).toMatch(/^I\d{4} [\d:.]+ +\d+ pods\] "SyncLoop \(housekeeping\)"$/m);
});

test('PUT /debug/flags/v changes the verbosity of a running agent', async () => {
  const p = await clet(['-v=0']);
  const reply = await get(`https://127.0.0.1:${p.port}/debug/flags/v`, { method: 'PUT', body: '4' });
  expect([reply.status, reply.body]).toEqual([200, 'successfully set klog.logging.verbosity to 4\n']);
  await waitFor(() => housekeeping(p.stderr()), 'a housekeeping line after raising -v');
});

test('--logging-format=json writes JSON lines with upstream\'s keys', async () => {
  const p = await clet(['--logging-format=json', '-v=4']);
  await waitFor(() => housekeeping(p.stderr()), 'a housekeeping line');
  const lines = p.stderr().trim().split('\n');
  // Only pflag's deprecation notices, printed while parsing and before logging starts, are not JSON (as upstream).
  expect(lines.filter((l) => !l.startsWith('{')).every((l) => l.startsWith('Flag --'))).toBe(true);
  const records = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  const started = records.find((r) => r.msg === 'Started clet')!;
  expect(started).toMatchObject({ caller: 'clet', v: 0 });
  expect(typeof started.ts).toBe('number');
  expect(records.find((r) => r.msg === 'SyncLoop (housekeeping)')).toMatchObject({ caller: 'pods', v: 4 });
  expect(records.find((r) => r.msg === 'Starting to listen')).toMatchObject({ address: '127.0.0.1', port: p.port });
});

test('split streams: info lines on stdout (buffered, flushed on the frequency), errors on stderr', async () => {
  // Token authentication through an API server that is not there: each bearer request logs an error.
  const clconfig = join(tmp, 'unreachable.clconfig');
  writeFileSync(clconfig, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:${await freePort()}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`);
  const p = await clet([
    '--feature-gates=LoggingAlphaOptions=true',
    '--log-text-split-stream',
    '--log-text-info-buffer-size=1Mi',
    '--log-flush-frequency=100ms',
    '--authentication-token-webhook',
    `--clconfig=${clconfig}`,
  ]);
  await waitFor(() => p.stdout().includes('"Starting to listen"'), 'the buffered info lines on stdout');
  await get(`https://127.0.0.1:${p.port}/pods`, { token: 'some-token' });
  await waitFor(() => p.stderr().includes('"Unable to authenticate the request"'), 'the error on stderr');
  expect(p.stderr()).toMatch(/^E\d{4} .*"Unable to authenticate the request" err=/m);
  expect(p.stderr()).not.toMatch(/^I/m);
  expect(p.stdout()).not.toMatch(/^E/m);
});

test('bad logging values stop the agent before it starts, with every error', async () => {
  const p = await startClet(['--fail-cgroupv1=false', '--fail-swap-on=false', '--logging-format=xml', '--log-text-info-buffer-size=lots', '--feature-gates=LoggingAlphaOptions=true']);
  expect(await p.exited).toBe(1);
  // The errors are the quoted err value of "command failed".
  expect(p.stderr()).toContain('logging.format: Unsupported value: \\"xml\\": supported values: \\"json\\", \\"text\\"');
  expect(p.stderr()).toContain('logging.options.text.infoBufferSize: Invalid value: \\"lots\\"');
});
