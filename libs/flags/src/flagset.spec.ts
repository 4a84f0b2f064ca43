import { FlagSet, types, parseDuration, formatDuration } from './index';

function demo() {
  return new FlagSet('demo')
    .add({ name: 'secure-port', type: types.int32, default: 6443, usage: 'port' })
    .add({ name: 'fail-swap-on', type: types.bool, default: true, usage: 'swap' })
    .add({ name: 'cgroup-root', type: types.string, default: '', usage: 'root' })
    .add({ name: 'grace', type: types.duration, default: 0, usage: 'grace' })
    .add({ name: 'labels', type: types.mapStringString, default: {}, usage: 'labels' })
    .add({ name: 'tls-cipher-suites', type: types.stringSlice, default: [], usage: 'ciphers' })
    .add({ name: 'v', shorthand: 'v', type: types.int32, default: 0, usage: 'verbosity' })
    .add({ name: 'old', type: types.string, default: '', usage: 'old', deprecated: 'use --config instead' });
}

describe('FlagSet.parse (pflag rules)', () => {
  const cases: Array<[string, string[], Record<string, unknown>, string[]?]> = [
    ['--flag=value', ['--secure-port=1'], { 'secure-port': 1 }],
    ['--flag value', ['--secure-port', '2'], { 'secure-port': 2 }],
    ['bool alone is true', ['--fail-swap-on'], { 'fail-swap-on': true }],
    ['bool =false', ['--fail-swap-on=false'], { 'fail-swap-on': false }],
    ['bool never takes the next arg', ['--fail-swap-on', 'false'], { 'fail-swap-on': true }, ['false']],
    ['underscores are dashes', ['--fail_swap_on=false'], { 'fail-swap-on': false }],
    ['value starting with dash', ['--cgroup-root', '-x'], { 'cgroup-root': '-x' }],
    ['go duration', ['--grace=1m30s'], { grace: 90_000 }],
    ['map accumulates', ['--labels=a=1,b=2', '--labels', 'c=3'], { labels: { a: '1', b: '2', c: '3' } }],
    ['slice accumulates', ['--tls-cipher-suites=A,B', '--tls-cipher-suites=C'], { 'tls-cipher-suites': ['A', 'B', 'C'] }],
    ['-v 4', ['-v', '4'], { v: 4 }],
    ['-v=4', ['-v=4'], { v: 4 }],
    ['-v4', ['-v4'], { v: 4 }],
    ['--v=4', ['--v=4'], { v: 4 }],
    ['-- ends flags', ['--', '--secure-port=1'], { 'secure-port': 6443 }, ['--secure-port=1']],
  ];
  test.each(cases)('%s', (_n, argv, want, args = []) => {
    const r = demo().parse(argv);
    expect(r.errors).toEqual([]);
    for (const [k, v] of Object.entries(want)) expect(r.values[k]).toEqual(v);
    expect(r.args).toEqual(args);
  });

  test('every error is reported, in pflag words', () => {
    const r = demo().parse(['--secure-port=abc', '--nope', '--grace=soon', '--fail-swap-on=maybe', '--secure-port=99999999999', '-x', '--cgroup-root']);
    expect(r.errors).toEqual([
      'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
      'unknown flag: --nope',
      'invalid argument "soon" for "--grace" flag: time: invalid duration "soon"',
      'invalid argument "maybe" for "--fail-swap-on" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
      'invalid argument "99999999999" for "--secure-port" flag: strconv.ParseInt: parsing "99999999999": value out of range',
      "unknown shorthand flag: 'x' in -x",
      'flag needs an argument: --cgroup-root',
    ]);
  });

  test('explicitly set flags are known, deprecated ones warn', () => {
    const r = demo().parse(['--secure-port=6443', '--old=x']);
    expect([...r.explicit].sort()).toEqual(['old', 'secure-port']);
    expect(r.warnings).toEqual(['Flag --old has been deprecated, use --config instead']);
  });

  test('help lists flags with types and defaults, hides deprecated ones', () => {
    const u = demo().usage();
    expect(u).toContain('--secure-port int32');
    expect(u).toContain('(default 6443)');
    expect(u).toMatch(/--fail-swap-on\s+swap \(default true\)/);
    expect(u).not.toContain('--old');
  });
});

describe('Go durations', () => {
  test.each([
    ['0', 0, '0s'],
    ['1m0s', 60_000, '1m0s'],
    ['1h2m3.5s', 3_723_500, '1h2m3.5s'],
    ['500ms', 500, '500ms'],
    ['2h', 7_200_000, '2h0m0s'],
    ['-5s', -5000, '-5s'],
    ['1.5us', 0.0015, '1.5µs'],
  ])('%s', (text, ms, formatted) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
    expect(formatDuration(ms)).toBe(formatted);
  });
  test.each([
    ['soon', 'time: invalid duration "soon"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1x', 'time: unknown unit "x" in duration "1x"'],
    ['', 'time: invalid duration ""'],
  ])('%s is rejected', (text, msg) => expect(() => parseDuration(text)).toThrow(msg));
});
