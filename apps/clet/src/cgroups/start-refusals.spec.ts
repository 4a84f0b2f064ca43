// What the agent refuses before serving, for the resource managers and cgroup settings it cannot honour, and
// the values upstream itself rejects; and the pod count --pods-per-core leaves.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { newFeatureGate } from '../flags/gates';
import { flagDefaults } from '../config/defaults';
import type { CletConfiguration } from '../config/types';
import { validateCletConfiguration } from '../config/validate';
import { effectiveMaxPods } from '../node/facts';
import { checkResourceManagers } from '../startup/checks';
import { applyOwnOomScoreAdj } from './index';

const config = (over: Partial<CletConfiguration>): CletConfiguration => ({ ...flagDefaults(), ...over }) as CletConfiguration;

beforeAll(() => {
  process.env.CLET_TEST_RUN_SYSTEMD = path.join(os.tmpdir(), 'cl-no-such-systemd-mark');
});
afterAll(() => {
  delete process.env.CLET_TEST_RUN_SYSTEMD;
});

test.each([
  ['defaults', {}, true, []],
  ['static cpu manager', { cpuManagerPolicy: 'static' }, true, ['cpu manager policy "static" is not supported by this agent: it does not assign exclusive CPUs to containers; use --cpu-manager-policy=none']],
  ['Static memory manager', { memoryManagerPolicy: 'Static' }, true, ['memory manager policy "Static" is not supported by this agent: it does not pin containers to NUMA nodes; use --memory-manager-policy=None']],
  ['topology manager', { topologyManagerPolicy: 'single-numa-node' }, true, ['topology manager policy "single-numa-node" is not supported by this agent: it aligns no resources to NUMA nodes; use --topology-manager-policy=none']],
  ['systemd driver without systemd', { cgroupDriver: 'systemd' }, true, ['cgroup driver "systemd" needs a running systemd, and none runs on this host (no /run/systemd/system); use --cgroup-driver=cgroupfs']],
  ['LimitedSwap on cgroup v1', { memorySwap: { swapBehavior: 'LimitedSwap' } }, true, ['swap feature is enabled and LimitedSwap but it is only supported with cgroupv2']],
  ['LimitedSwap on cgroup v2', { memorySwap: { swapBehavior: 'LimitedSwap' } }, false, ['memorySwap.swapBehavior "LimitedSwap" is not supported by this agent (it sets no swap limits); use NoSwap']],
  ['NoSwap', { memorySwap: { swapBehavior: 'NoSwap' } }, true, []],
  ['all at once', { cpuManagerPolicy: 'static', cgroupDriver: 'systemd' }, true, [expect.stringContaining('cpu manager'), expect.stringContaining('cgroup driver')]],
])('start refusal: %s', (_n, over, v1, want) => {
  expect(checkResourceManagers(config(over as Partial<CletConfiguration>), v1)).toEqual(want);
});

test('systemd running but unsupported is refused too', () => {
  const mark = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-systemd-'));
  process.env.CLET_TEST_RUN_SYSTEMD = mark;
  try {
    expect(checkResourceManagers(config({ cgroupDriver: 'systemd' }), true)).toEqual(['cgroup driver "systemd" is not supported by this agent; use --cgroup-driver=cgroupfs']);
  } finally {
    process.env.CLET_TEST_RUN_SYSTEMD = path.join(os.tmpdir(), 'cl-no-such-systemd-mark');
    fs.rmSync(mark, { recursive: true, force: true });
  }
});

test.each([
  [{ cpuManagerPolicy: 'fancy' }, 'failed to initialize cpu manager: unknown policy: "fancy"'],
  [{ memoryManagerPolicy: 'none' }, 'failed to initialize memory manager: unknown policy: "none"'],
  [{ configMapAndSecretChangeDetectionStrategy: 'Poll' }, 'unknown configmap and secret manager mode: Poll'],
  [{ cgroupDriver: 'cgroupfsx' }, 'invalid configuration: cgroupDriver (--cgroup-driver) "cgroupfsx" must be one of: "cgroupfs", "systemd"'],
])('validation: %j', (over, message) => {
  const errs = validateCletConfiguration(config({ ...over, failCgroupV1: false }), { gates: newFeatureGate(), cgroupV1: true });
  expect(errs).toContain(message);
});

test.each([
  [110, 0, 2, 110],
  [110, 10, 2, 20],
  [15, 10, 2, 15],
])('max pods %d, %d per core, %d cores: %d', (maxPods, perCore, cores, want) => {
  expect(effectiveMaxPods(maxPods, perCore, cores)).toBe(want);
});

test('--oom-score-adj is written to the agent\'s own process; a refusal is logged', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-oom-'));
  const logs: unknown[] = [];
  applyOwnOomScoreAdj(-999, (e) => logs.push(e), path.join(dir, 'oom_score_adj'));
  expect(fs.readFileSync(path.join(dir, 'oom_score_adj'), 'utf8')).toBe('-999');
  applyOwnOomScoreAdj(5, (e) => logs.push(e), path.join(dir, 'missing', 'oom_score_adj'));
  expect(logs).toEqual([expect.objectContaining({ msg: 'Failed to ApplyOOMScoreAdj', severity: 'W' })]);
  fs.rmSync(dir, { recursive: true, force: true });
});
