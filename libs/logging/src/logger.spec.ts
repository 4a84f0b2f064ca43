import { Logger, type LoggingOptions } from './index';

const at = new Date(Date.UTC(2026, 10, 24, 15, 45, 0, 123));

function capture(opts: LoggingOptions = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const log = Logger.create({ name: 'clet', now: () => at, stdout: { write: (s) => void out.push(s) }, stderr: { write: (s) => void err.push(s) }, ...opts });
  return { log, out, err };
}

const pid = String(process.pid).padStart(7);

test.each([
  ['info', (l: Logger) => l.info('Starting', { port: 10250, node: 'n1' }), `I1124 15:45:00.123000 ${pid} clet] "Starting" port=10250 node="n1"\n`],
  ['warning', (l: Logger) => l.warn('cgroup v1 support is in maintenance mode'), `W1124 15:45:00.123000 ${pid} clet] "cgroup v1 support is in maintenance mode"\n`],
  ['error with err', (l: Logger) => l.error('Error syncing pod', { pod: 'default/a' }, new Error('boom')), `E1124 15:45:00.123000 ${pid} clet] "Error syncing pod" err="boom" pod="default/a"\n`],
  ['multi-line value', (l: Logger) => l.info('out', { text: 'a\nb' }), `I1124 15:45:00.123000 ${pid} clet] "out" text=<\n\ta\n\tb\n >\n`],
])('text format: %s', (_n, write, line) => {
  const { log, err } = capture();
  write(log);
  expect(err).toEqual([line]);
});

test.each([
  ['info', (l: Logger) => l.info('Starting', { port: 10250 }), { ts: at.getTime() / 1000, caller: 'clet', msg: 'Starting', v: 0, port: 10250 }],
  ['verbose info', (l: Logger) => l.v(2, 'synced', { pod: 'a' }), { ts: at.getTime() / 1000, caller: 'clet', msg: 'synced', v: 2, pod: 'a' }],
  ['error', (l: Logger) => l.error('failed', { pod: 'a' }, new Error('boom')), { ts: at.getTime() / 1000, caller: 'clet', msg: 'failed', err: 'boom', pod: 'a' }],
])('json format: %s has upstream keys', (_n, write, record) => {
  const { log, err } = capture({ format: 'json', verbosity: 2 });
  write(log);
  expect(err.map((l) => JSON.parse(l))).toEqual([record]);
});

test('-v gates verbose lines; vmodule overrides it by logger name; the level can change at run time', () => {
  const { log, err } = capture({ verbosity: 1, vmodule: [{ filePattern: 'prob*', verbosity: 4 }] });
  const pods = log.named('pods');
  const prober = log.named('prober');
  pods.v(1, 'one');
  pods.v(2, 'two: hidden');
  prober.v(4, 'four: shown by vmodule');
  prober.v(5, 'five: hidden');
  log.verbosity = 3;
  pods.v(3, 'three: shown after the change');
  expect(err.map((l) => l.split('] ')[1])).toEqual(['"one"\n', '"four: shown by vmodule"\n', '"three: shown after the change"\n']);
  expect(err[1]).toContain(' prober] ');
});

test('split streams: info to stdout, errors to stderr; buffered info is flushed before an error and on flush()', async () => {
  const { log, out, err } = capture({ splitStream: true, infoBufferSize: 1 << 20 });
  log.info('a');
  log.info('b');
  expect(out).toEqual([]);
  log.error('c');
  expect(out.join('')).toMatch(/"a"\n.*"b"\n$/s);
  expect(err).toHaveLength(1);
  log.info('d');
  await log.flush();
  expect(out).toHaveLength(2);
  log.stop();
});

test('buffered info lines are written on the flush frequency', async () => {
  const { log, out } = capture({ splitStream: true, infoBufferSize: 1 << 20, flushFrequencyMs: 50 });
  log.info('later');
  await new Promise((r) => setTimeout(r, 200));
  expect(out.join('')).toContain('"later"');
  log.stop();
});

test('a sink that fails does not throw to the caller; flush reports it until a write succeeds again', async () => {
  let broken = true;
  const log = Logger.create({ stderr: { write: () => { if (broken) throw new Error('EPIPE'); } } });
  expect(() => log.info('x')).not.toThrow();
  await expect(log.flush()).rejects.toThrow('EPIPE');
  broken = false;
  log.info('y');
  await expect(log.flush()).resolves.toBeUndefined();
});
