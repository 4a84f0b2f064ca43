import { logCheck } from '@cl/healthz';
import { Logger, entryText, logFn, logLine, parseByteSize } from './log';

test('the log health check fails once the log cannot be written for longer than upstream allows', async () => {
  let broken = false;
  let t = 0;
  const log = Logger.create({ stderr: { write: () => { if (broken) throw new Error('write /dev/stderr: broken pipe'); } } });
  const check = logCheck(() => log.flush(), () => t);
  try {
    check.check();
    broken = true;
    log.info('lost');
    t += 119_000;
    expect(() => check.check()).not.toThrow();
    t += 2_000;
    expect(() => check.check()).toThrow('logging blocked');
  } finally {
    check.stop();
  }
});

test.each([
  ['512', 512],
  ['1K', 1000],
  ['2Ki', 2048],
  ['3M', 3_000_000],
  ['5Mi', 5 * 1024 * 1024],
  ['0', 0],
])('byte size %s is %d', (text, n) => expect(parseByteSize(text)).toBe(n));

test('a byte size that is not one is refused', () => expect(() => parseByteSize('lots')).toThrow('invalid size "lots"'));

test('entries keep their level and error through the log function', () => {
  const lines: string[] = [];
  const log = Logger.create({ verbosity: 2, now: () => new Date(0), stderr: { write: (s) => void lines.push(s.split('] ')[0].slice(0, 1) + ' ' + s.split('] ')[1]) } });
  const fn = logFn(log.named('pods'));
  fn(logLine('hidden', {}, { v: 3 }));
  fn(logLine('shown', { pod: 'a' }, { v: 2 }));
  fn(logLine('bad', { pod: 'a' }, { severity: 'E', err: new Error('boom') }));
  fn(logLine('careful', {}, { severity: 'W' }));
  fn('plain');
  expect(lines).toEqual(['I "shown" pod="a"\n', 'E "bad" err="boom" pod="a"\n', 'W "careful"\n', 'I "plain"\n']);
  expect(entryText(logLine('m', { k: 1 }, { err: 'x' }))).toBe('"m" err="x" k=1');
});
