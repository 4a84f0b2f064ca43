import { observe, type Measurements } from './signals';
import {
  conditionsHeld, conditionsLastObservedAt, firstObservedAt, metGracePeriod, parseThresholds, thresholdQuantity, thresholdsMet, thresholdToReclaim,
} from './thresholds';

const Mi = 1024 * 1024;
const none = { evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {} };

test.each([
  ['an absolute hard threshold', { ...none, evictionHard: { 'memory.available': '100Mi' } },
    [{ signal: 'memory.available', value: { quantity: 100 * Mi, text: '100Mi' }, gracePeriodMs: 0, hard: true }]],
  ['a percentage', { ...none, evictionHard: { 'nodefs.available': '10%' } },
    [{ signal: 'nodefs.available', value: { percentage: 0.1 }, gracePeriodMs: 0, hard: true }]],
  ['0% and 100% are no threshold (upstream ignores them)', { ...none, evictionHard: { 'nodefs.available': '0%', 'imagefs.available': '100%' } }, []],
  ['a soft threshold takes its grace period', { ...none, evictionSoft: { 'nodefs.available': '1Gi' }, evictionSoftGracePeriod: { 'nodefs.available': '1m30s' } },
    [{ signal: 'nodefs.available', value: { quantity: 1024 * Mi, text: '1Gi' }, gracePeriodMs: 90_000, hard: false }]],
  ['minimum reclaim attaches to the signal, hard and soft', {
    ...none, evictionHard: { 'nodefs.available': '10%' }, evictionSoft: { 'nodefs.available': '20%' },
    evictionSoftGracePeriod: { 'nodefs.available': '10s' }, evictionMinimumReclaim: { 'nodefs.available': '500Mi' },
  }, [
    { signal: 'nodefs.available', value: { percentage: 0.1 }, gracePeriodMs: 0, hard: true, minReclaim: { quantity: 500 * Mi, text: '500Mi' } },
    { signal: 'nodefs.available', value: { percentage: 0.2 }, gracePeriodMs: 10_000, hard: false, minReclaim: { quantity: 500 * Mi, text: '500Mi' } },
  ]],
])('parseThresholds: %s', (_name, settings, want) => {
  expect(parseThresholds(settings)).toEqual(want);
});

test.each([
  ['a percentage is truncated to a whole amount', { percentage: 0.1 }, 1001, 100],
  ['an absolute amount is itself', { quantity: 5, text: '5' }, 1000, 5],
])('thresholdQuantity: %s', (_name, v, capacity, want) => {
  expect(thresholdQuantity(v, capacity)).toBe(want);
});

const measured = (nodefsAvailable: number, memAvailable = 1024 * Mi): Measurements => ({
  memory: { totalBytes: 2048 * Mi, availableBytes: memAvailable },
  nodefs: { capacityBytes: 100 * Mi, availableBytes: nodefsAvailable, inodes: 1000, inodesFree: 900 },
  pids: { max: 1000, available: 900 },
  time: 1,
});

const disk = parseThresholds({ ...none, evictionHard: { 'nodefs.available': '50%' }, evictionMinimumReclaim: { 'nodefs.available': '10Mi' } });

test.each([
  ['available above the threshold: not met', 60 * Mi, false, []],
  ['available below the threshold: met', 40 * Mi, false, ['nodefs.available']],
  ['exactly the threshold: not met (strictly less than)', 50 * Mi, false, []],
  ['above the threshold but within minimum reclaim: still met when reclaiming', 55 * Mi, true, ['nodefs.available']],
  ['past the threshold plus minimum reclaim: resolved', 61 * Mi, true, []],
])('thresholdsMet: %s', (_name, available, withMinReclaim, want) => {
  expect(thresholdsMet(disk, observe(measured(available)), withMinReclaim).map((t) => t.signal)).toEqual(want);
});

test('imagefs follows nodefs when the runtime has no image filesystem of its own', () => {
  const obs = observe(measured(40 * Mi));
  expect(obs['imagefs.available']).toEqual(obs['nodefs.available']);
  expect(obs['imagefs.inodesFree']).toEqual({ available: 900, capacity: 1000, time: 1 });
});

test.each([
  ['a hard threshold acts at once', 0, 0, true],
  ['a soft threshold waits for its grace period', 30_000, 29_999, false],
  ['a soft threshold acts once its grace period passed', 30_000, 30_000, true],
])('metGracePeriod: %s', (_name, graceMs, elapsed, acts) => {
  const [t] = parseThresholds(graceMs === 0
    ? { ...none, evictionHard: { 'nodefs.available': '1Mi' } }
    : { ...none, evictionSoft: { 'nodefs.available': '1Mi' }, evictionSoftGracePeriod: { 'nodefs.available': `${graceMs}ms` } });
  const first = firstObservedAt([t!], new Map(), 1000);
  // Seen again later: the first observation time is kept.
  const again = firstObservedAt([t!], first, 1000 + elapsed);
  expect(metGracePeriod(again, 1000 + elapsed).length === 1).toBe(acts);
});

test.each([
  ['raised now', 0, ['DiskPressure']],
  ['no longer met but within the transition period: held', 299_999, ['DiskPressure']],
  ['the transition period passed: cleared', 300_000, []],
])('conditions held for the pressure transition period: %s', (_name, elapsed, want) => {
  const last = conditionsLastObservedAt(['DiskPressure'], new Map(), 1000);
  expect(conditionsHeld(conditionsLastObservedAt([], last, 1000 + elapsed), 300_000, 1000 + elapsed)).toEqual(want);
});

test('memory is reclaimed before disk whatever the order met', () => {
  const ts = parseThresholds({ ...none, evictionHard: { 'nodefs.available': '1Mi', 'memory.available': '1Mi', 'pid.available': '1' } });
  expect(thresholdToReclaim(ts)).toEqual({ threshold: ts[1], resource: 'memory' });
  expect(thresholdToReclaim([ts[0]!])?.resource).toBe('ephemeral-storage');
  expect(thresholdToReclaim([ts[2]!])?.resource).toBe('pids');
  expect(thresholdToReclaim([])).toBeNull();
});
