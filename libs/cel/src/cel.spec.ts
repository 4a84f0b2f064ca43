import {
  CelCompileError,
  CelEvaluationError,
  CelResultTypeError,
  claimsToCel,
  compileClaimMapping,
  compileClaimValidationRule,
  compileMatchCondition,
  compileUserValidationRule,
  parseClaimsJson,
  selectsField,
} from './index';

const compileError = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof CelCompileError || e instanceof CelResultTypeError) return e.message;
    throw e;
  }
  throw new Error('compiled');
};

describe('compile once, check types, report positions', () => {
  test.each([
    ['undeclared variable', () => compileClaimMapping('foo.bar'), "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo.bar\n | ^"],
    ['user is not declared in claims expressions', () => compileClaimMapping('user.username'), "ERROR: <input>:1:1: undeclared reference to 'user' (in container '')\n | user.username\n | ^"],
    ['unknown UserInfo field', () => compileUserValidationRule('user.unknown'), "ERROR: <input>:1:6: undefined field 'unknown'\n | user.unknown\n | .....^"],
    ['syntax error column', () => compileClaimMapping('claims.sub +'), 'ERROR: <input>:1:13: Unexpected token: EOF\n | claims.sub +\n | ............^'],
    ['bool required for claim rules (dyn is not bool)', () => compileClaimValidationRule('claims.foo'), 'must evaluate to bool but got dyn'],
    ['bool required for match conditions', () => compileMatchCondition('request.user'), 'must evaluate to bool but got string'],
    ['heterogeneous list literal', () => compileClaimMapping('["a", 1]'), expect.stringContaining('ERROR: <input>:1:')],
  ])('%s', (_n, f, expected) => {
    expect(compileError(f)).toEqual(expected);
  });

  test('mapping expressions take any result type', () => {
    expect(compileClaimMapping('claims.groups').outputType).toBe('dyn');
    expect(compileClaimMapping('claims.sub + ":x"').outputType).toBe('string');
  });
});

describe('evaluation', () => {
  const claims = parseClaimsJson('{"sub":"u1","email":"a@example.com","email_verified":true,"exp":1700000000,"ratio":1.0,"groups":["b","a"]}');

  test.each([
    ["claims.email_verified == true && claims.email.endsWith('@example.com')", true],
    ['claims.exp + 1', 1700000001n],
    ['claims.exp > 1.5', true],
    ['claims.ratio == 1.0', true],
    ['has(claims.missing)', false],
    ['claims.?missing.orValue("d")', 'd'],
    ['claims.groups.isSorted()', false],
    ['sets.contains(claims.groups, ["a"])', true],
    ['sets.equivalent(claims.groups, ["a", "b"])', true],
    ['"a-b".replace("-", "_")', 'a_b'],
    ['"abc".charAt(1)', 'b'],
    ['claims.email.find("@.*")', '@example.com'],
    ['[1, 2, 3].sum()', 6n],
    ['url("https://example.com:8443/p?q=1").getPort()', '8443'],
    ['isURL("not a url")', false],
    ['claims.email.split("@")[1].lowerAscii()', 'example.com'],
  ])('%s', (expr, expected) => {
    expect(compileClaimMapping(expr).evaluate({ claims })).toEqual(expected);
  });

  test('a missing key is an evaluation error in cel-go words', () => {
    const p = compileClaimMapping('claims.username');
    expect(() => p.evaluate({ claims })).toThrow(new CelEvaluationError('no such key: username'));
  });

  test('user and request variables', () => {
    const u = compileUserValidationRule("user.groups.all(g, !g.startsWith('system:')) && user.extra['k'][0] == 'v'");
    expect(u.evaluate({ user: { username: 'x', uid: '', groups: ['dev'], extra: { k: ['v'] } } })).toBe(true);
    const r = compileMatchCondition("has(request.resourceAttributes) && request.resourceAttributes.verb == 'get' && 'admins' in request.groups");
    expect(r.evaluate({ request: { user: 'x', groups: ['admins'], resourceAttributes: { verb: 'get', resource: 'pods' } } })).toBe(true);
    expect(r.evaluate({ request: { user: 'x', groups: ['admins'], nonResourceAttributes: { path: '/healthz', verb: 'get' } } })).toBe(false);
  });
});

describe('claims as Kubernetes converts them', () => {
  test('whole numbers are int, others double; big integers keep every digit', () => {
    expect(parseClaimsJson('{"a":1,"b":1.0,"c":[9223372036854775807,1e3,-2],"d":{"2":null}}')).toEqual({
      a: 1n,
      b: 1,
      c: [9223372036854775807n, 1000, -2n],
      d: { '2': null },
    });
    expect(claimsToCel({ a: 1, b: 1.5, c: ['x', true] })).toEqual({ a: 1n, b: 1.5, c: ['x', true] });
  });
  test('malformed JSON', () => {
    expect(() => parseClaimsJson('{"a":')).toThrow(SyntaxError);
  });
});

describe('selectsField (the claims.email_verified rule)', () => {
  test.each([
    ['claims.email', true],
    ['claims.?email.orValue("")', true],
    ['has(claims.email) ? "x" : "y"', true],
    ['[claims.sub].map(x, claims.email)', true],
    ['claims["email"]', false],
    ['claims.email_', false],
    ['claims.other.email', false],
  ])('%s', (expr, expected) => {
    expect(selectsField(compileClaimMapping(expr), 'claims', 'email')).toBe(expected);
  });
});
