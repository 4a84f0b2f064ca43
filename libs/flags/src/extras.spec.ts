import {
  FlagSet,
  FeatureGate,
  types,
  ipType,
  levelType,
  configurationMap,
  langleSeparatedMap,
  noSplitMap,
  colonSeparatedMultimap,
  featureGateMap,
  type ValueType,
} from './index';

const versionType: ValueType<string> = { name: 'version', optionalValue: 'true', parse: (t) => t, format: (v) => v };

function set() {
  return new FlagSet('demo')
    .add({ name: 'address', type: ipType, default: '0.0.0.0', usage: 'ip', section: 'serving' })
    .add({ name: 'node-labels', type: configurationMap, default: {}, usage: 'labels', section: 'general' })
    .add({ name: 'eviction-hard', type: langleSeparatedMap, default: { 'memory.available': '100Mi' }, usage: 'ev', section: 'general' })
    .add({ name: 'cpu-opts', type: noSplitMap, default: {}, usage: 'opts', section: 'general' })
    .add({ name: 'header', type: colonSeparatedMultimap, default: {}, usage: 'hdr', section: 'general' })
    .add({ name: 'feature-gates', type: featureGateMap, default: {}, usage: 'gates', section: 'general' })
    .add({ name: 'version', type: versionType, default: 'false', usage: 'print version', section: 'general' })
    .add({ name: 'seccomp-default', type: types.bool, default: false, usage: 'use `RuntimeDefault` as default', section: 'general' })
    .add({ name: 'max-pods', type: types.int32, default: 110, usage: 'pods', section: 'general', deprecated: 'use --config' })
    .add({ name: 'v', shorthand: 'v', type: levelType, default: 0, usage: 'verbosity', section: 'general' })
    .add({ name: 'pod-max-pids', type: types.int64, default: -1, usage: 'pids', section: 'general' });
}

describe('extra value types', () => {
  const ok: Array<[string, string[], string, unknown]> = [
    ['ip v4', ['--address=127.0.0.1'], 'address', '127.0.0.1'],
    ['ip v6', ['--address', '::1'], 'address', '::1'],
    ['ip empty', ['--address='], 'address', ''],
    ['labels without = get empty values', ['--node-labels=a=1,b', '--node-labels=c=3'], 'node-labels', { a: '1', b: '', c: '3' }],
    ['eviction thresholds split on <', ['--eviction-hard=memory.available<1Gi,nodefs.available<5%'], 'eviction-hard', { 'memory.available': '1Gi', 'nodefs.available': '5%' }],
    ['no-split map keeps commas', ['--cpu-opts=full-pcpus-only=true,x'], 'cpu-opts', { 'full-pcpus-only': 'true,x' }],
    ['colon multimap keeps order', ['--header=a:hello,b:again', '--header', 'b:beautiful'], 'header', { a: ['hello'], b: ['again', 'beautiful'] }],
    ['feature gates', ['--feature-gates=A=true,B=false'], 'feature-gates', { A: true, B: false }],
    ['optional value alone', ['--version'], 'version', 'true'],
    ['optional value given', ['--version=raw'], 'version', 'raw'],
    ['Level shorthand', ['-v=3'], 'v', 3],
  ];
  test.each(ok)('%s', (_n, argv, flag, want) => {
    const r = set().parse(argv);
    expect(r.errors).toEqual([]);
    expect(r.values[flag]).toEqual(want);
  });

  test('optional-value flags never take the next argument', () => {
    expect(set().parse(['--version', 'raw']).args).toEqual(['raw']);
  });

  const bad: Array<[string[], string]> = [
    [['--address=abc'], 'invalid argument "abc" for "--address" flag: "abc" is not a valid IP address'],
    [['--eviction-hard=memory.available=1'], 'invalid argument "memory.available=1" for "--eviction-hard" flag: malformed pair, expect string<string'],
    [['--cpu-opts=x'], 'invalid argument "x" for "--cpu-opts" flag: malformed pair, expect string=string'],
    [['--header=a'], 'invalid argument "a" for "--header" flag: malformed pair, expect string:string'],
    [['--feature-gates=Foo'], 'invalid argument "Foo" for "--feature-gates" flag: malformed pair, expect string=bool'],
    [['--feature-gates=Foo=maybe'], 'invalid argument "Foo=maybe" for "--feature-gates" flag: invalid value of Foo: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    [['---foo'], 'bad flag syntax: ---foo'],
  ];
  test.each(bad)('%j is rejected', (argv, msg) => expect(set().parse(argv).errors).toEqual([msg]));

  test('help: sections, sorted, back-quoted type word, optional value, deprecated shown on request', () => {
    const u = set().usage({ showDeprecated: true, sort: true });
    expect(u).toMatch(/^Serving:\n[\s\S]*\nGeneral:\n/);
    
    expect(u).toMatch(/--seccomp-default RuntimeDefault +use RuntimeDefault as default\n/);
    expect(u).toMatch(/--version version\[=true\] +print version \(default false\)/);
    expect(u).toMatch(/--max-pods int32 +pods \(default 110\) \(DEPRECATED: use --config\)/);
    expect(u).toMatch(/--address ip +ip \(default 0\.0\.0\.0\)/);
    expect(u).toMatch(/-v, --v Level +verbosity/);
    expect(u).toMatch(/--pod-max-pids int +pids \(default -1\)/);
    const general = u.split('General:')[1];
    const names = [...general.matchAll(/--([a-z-]+)/g)].map((m) => m[1]).filter((n) => n !== 'config');
    expect(names).toEqual([...names].sort());
    expect(set().usage()).not.toContain('--max-pods');
  });
});

describe('FeatureGate', () => {
  const known = () =>
    new FeatureGate({
      A1: { stage: 'ALPHA', default: false },
      B1: { stage: 'BETA', default: true },
      B2: { stage: 'BETA', default: false },
      G1: { stage: 'GA', default: true, lockToDefault: true },
    });

  test.each([
    [{}, { A1: false, B1: true, B2: false }],
    [{ AllAlpha: true }, { A1: true, B1: true, B2: false }],
    [{ AllBeta: true, B1: false }, { A1: false, B1: false, B2: true }],
    [{ AllAlpha: true, A1: false }, { A1: false, B1: true, B2: false }],
  ])('%j', (set, want) => {
    const g = known();
    g.setFromMap(set);
    for (const [k, v] of Object.entries(want)) expect(g.enabled(k)).toBe(v);
  });

  test('unknown and locked gates are errors; nothing is applied', () => {
    const g = known();
    expect(() => g.setFromMap({ A1: true, Nope: true })).toThrow('unrecognized feature gate: Nope');
    expect(g.enabled('A1')).toBe(false);
    expect(() => g.setFromMap({ G1: false })).toThrow('cannot set feature gate G1 to false, feature is locked to true');
    expect(g.setFromMap({ G1: true })).toEqual(['Setting GA feature gate G1=true. It will be removed in a future release.']);
  });

  test('help lists alpha and beta gates with AllAlpha/AllBeta, sorted', () => {
    expect(known().knownFeatures()).toEqual([
      'A1=true|false (ALPHA - default=false)',
      'AllAlpha=true|false (ALPHA - default=false)',
      'AllBeta=true|false (BETA - default=false)',
      'B1=true|false (BETA - default=true)',
      'B2=true|false (BETA - default=false)',
    ]);
  });
});
