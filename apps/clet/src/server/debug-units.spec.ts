// Table tests of the pure parts behind the debugging endpoints: CRI log lines, tail offsets, PodLogOptions
// query decoding, which container's logs a status points at, and the Prometheus text rendering.
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedNanoTime, parseCriLine, readCriLog, tailStart } from './cri-log-reader';
import { parsePodLogQuery, readOptions } from './container-logs';
import { logContainerId, type PodView } from './pod-lookup';
import { renderFamilies } from './resource-metrics';

describe('CRI log lines', () => {
  test.each([
    ['2026-01-02T03:04:05.123456789Z stdout F hello', { stream: 'stdout', partial: false, log: 'hello\n' }],
    ['2026-01-02T03:04:05.1Z stderr P part', { stream: 'stderr', partial: true, log: 'part' }],
    ['2026-01-02T03:04:05Z stdout F ', { stream: 'stdout', partial: false, log: '\n' }],
    ['2026-01-02T03:04:05Z stdout F a b  c', { stream: 'stdout', partial: false, log: 'a b  c\n' }],
  ])('%j parses', (line, want) => {
    const e = parseCriLine(Buffer.from(line))!;
    expect({ stream: e.stream, partial: e.partial, log: e.log.toString() }).toEqual(want);
  });

  test.each(['garbage', 'not-a-time stdout F x', '2026-01-02T03:04:05Z stdin F x', ''])('%j is skipped', (line) => {
    expect(parseCriLine(Buffer.from(line))).toBeNull();
  });

  test.each([
    ['2026-01-02T03:04:05.1Z', '2026-01-02T03:04:05.100000000Z'],
    ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000000000Z'],
    ['2026-01-02T03:04:05.123456789+02:00', '2026-01-02T03:04:05.123456789+02:00'],
  ])('%s prints as %s', (t, want) => expect(fixedNanoTime(t)).toBe(want));
});

describe('tailStart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clet-tail-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  test.each([
    ['a\nb\nc\n', 1, 'c\n'],
    ['a\nb\nc\n', 2, 'b\nc\n'],
    ['a\nb\nc\n', 5, 'a\nb\nc\n'],
    ['a\nb\nc\n', 0, ''],
    ['', 3, ''],
  ])('%j last %i lines', async (content, n, want) => {
    const f = join(dir, 'log');
    writeFileSync(f, content);
    const fh = await open(f, 'r');
    const at = await tailStart(fh, content.length, n);
    await fh.close();
    expect(content.slice(at)).toBe(want);
  });
});

describe('PodLogOptions query', () => {
  test.each([
    ['', { follow: false, previous: false, timestamps: false }],
    ['follow=true&previous=1&timestamps=yes', { follow: true, previous: true, timestamps: true }],
    ['follow=false&timestamps=0', { follow: false, previous: false, timestamps: false }],
    ['tailLines=5&limitBytes=10&sinceSeconds=3', { tailLines: 5, limitBytes: 10, sinceSeconds: 3 }],
    ['tail=7', { tailLines: 7 }],
    ['tail=all&tailLines=3', {}],
    ['sinceTime=2026-01-02T03:04:05Z', { sinceTime: Date.parse('2026-01-02T03:04:05Z') }],
  ])('%j decodes', (q, want) => {
    expect(parsePodLogQuery(new URLSearchParams(q))).toMatchObject(want);
  });

  test.each([
    ['tailLines=abc', 'decode'],
    ['limitBytes=1.5', 'decode'],
    ['sinceTime=yesterday', 'decode'],
    ['tailLines=-1', 'invalid'],
    ['limitBytes=0', 'invalid'],
    ['sinceSeconds=0', 'invalid'],
    ['sinceSeconds=1&sinceTime=2026-01-02T03:04:05Z', 'invalid'],
  ])('%j is %s', (q, want) => expect(parsePodLogQuery(new URLSearchParams(q))).toBe(want));

  test('sinceSeconds and sinceTime become one lower bound', () => {
    expect(readOptions({ follow: false, previous: false, timestamps: false, sinceSeconds: 10 }, 100_000).sinceMs).toBe(90_000);
  });
});

describe('which container a log request reads', () => {
  const pod = (status: object): PodView => ({
    metadata: { name: 'p', namespace: 'default', uid: 'u' },
    spec: { containers: [{ name: 'c' }] },
    status: { containerStatuses: [{ name: 'c', ...status }] },
  });
  const running = { containerID: 'containerd://now', state: { running: {} } };
  test.each<[string, object, boolean, string]>([
    ['running', running, false, 'now'],
    ['running, previous', { ...running, lastState: { terminated: { containerID: 'containerd://old' } } }, true, 'old'],
    ['terminated', { state: { terminated: { containerID: 'containerd://done' } } }, false, 'done'],
    ['waiting after a failure', { state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { containerID: 'containerd://old' } } }, false, 'old'],
  ])('%s', (_n, status, previous, want) => expect(logContainerId(pod(status), 'c', previous)).toBe(want));

  test.each<[string, object, boolean, string]>([
    ['no previous', running, true, 'previous terminated container "c" in pod "p" not found'],
    ['image pull', { state: { waiting: { reason: 'ErrImagePull' } } }, false, 'container "c" in pod "p" is waiting to start: image can\'t be pulled'],
    ['back-off', { state: { waiting: { reason: 'ImagePullBackOff' } } }, false, 'container "c" in pod "p" is waiting to start: trying and failing to pull image'],
    ['creating', { state: { waiting: { reason: 'ContainerCreating' } } }, false, 'container "c" in pod "p" is waiting to start: ContainerCreating'],
    ['no state', { state: {} }, false, 'container "c" in pod "p" is waiting to start - no logs yet'],
  ])('%s', (_n, status, previous, msg) => expect(() => logContainerId(pod(status), 'c', previous)).toThrow(msg));

  test('a container without a status is not available', () => {
    expect(() => logContainerId({ ...pod({}), status: {} }, 'c', false)).toThrow('container "c" in pod "p" is not available');
  });
});

test('Prometheus text: families sorted, labels sorted and escaped, empty families left out', () => {
  const text = renderFamilies([
    { name: 'b_total', help: 'B.', type: 'counter', samples: [{ labels: { z: '1', a: 'x"y\\' }, value: 0.5, timeMs: 1000 }] },
    { name: 'a_bytes', help: 'A.', type: 'gauge', samples: [{ labels: {}, value: 3 }] },
    { name: 'c_empty', help: 'C.', type: 'gauge', samples: [] },
  ]);
  expect(text).toBe('# HELP a_bytes A.\n# TYPE a_bytes gauge\na_bytes 3\n# HELP b_total B.\n# TYPE b_total counter\nb_total{a="x\\"y\\\\",z="1"} 0.5 1000\n');
});

describe('readCriLog follow', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clet-follow-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('reads new lines, reopens a rotated file from its start, and ends once the container stopped', async () => {
    const file = join(dir, '0.log');
    const entry = (s: string) => `2026-01-02T03:04:05.000000001Z stdout F ${s}\n`;
    writeFileSync(file, entry('one'));
    let out = '';
    let running = true;
    const seen = (s: string) => new Promise<void>((resolve) => {
      const t = setInterval(() => out.includes(s) && (clearInterval(t), resolve()), 20);
    });
    const done = readCriLog(
      file,
      { follow: true, timestamps: false },
      { closed: false, write: async (b) => void (out += b.toString()) },
      async () => running,
      new AbortController().signal,
    );
    await seen('one\n');
    // A partial (P) entry continues in the next one; a line cut at the end of the file waits for its newline.
    appendFileSync(file, entry('two') + '2026-01-02T03:04:05Z stdout P par');
    await seen('two\n');
    appendFileSync(file, '\n2026-01-02T03:04:06Z stdout F tial\n');
    await seen('partial\n');
    // Rotation: the runtime renames the file and starts a new one at the same path.
    renameSync(file, `${file}.20260102-030405`);
    writeFileSync(file, entry('three'));
    await seen('three\n');
    running = false;
    await done;
    expect(out).toBe('one\ntwo\npartial\nthree\n');
  });
  test('without follow, the log as it was when the read began: lines written while the client reads are not added', async () => {
    const file = join(dir, 'still.log');
    const entry = (s: string) => `2026-01-02T03:04:05.000000001Z stdout F ${s}\n`;
    writeFileSync(file, entry('one') + entry('two'));
    let out = '';
    // A slow client: the container writes another line while the first one is on its way.
    const write = async (b: Buffer) => {
      out += b.toString();
      appendFileSync(file, entry('later'));
    };
    const read = (tailLines?: number) =>
      readCriLog(file, { follow: false, timestamps: false, tailLines }, { closed: false, write }, async () => true, new AbortController().signal);
    await read(1);
    expect(out).toBe('two\n');
    out = '';
    await read();
    expect(out).toBe('one\ntwo\nlater\n');
  });
});
