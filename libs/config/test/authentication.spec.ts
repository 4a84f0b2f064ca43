import {
  loadAuthenticationConfigurationFile,
  validateAuthenticationConfiguration,
  type AuthenticationConfiguration,
  type JWTAuthenticator,
} from '../src';
import { loadErrors, TempDir } from './helpers';

const tmp = new TempDir();
afterAll(() => tmp.remove());

const jwt = (over: Partial<JWTAuthenticator> = {}, issuer: Partial<JWTAuthenticator['issuer']> = {}): JWTAuthenticator => ({
  issuer: { url: 'https://issuer.example.com', audiences: ['aud'], ...issuer },
  claimMappings: { username: { claim: 'sub', prefix: '' } },
  ...over,
});
const cfg = (...jwts: JWTAuthenticator[]): AuthenticationConfiguration => ({ jwt: jwts });
const cm = (m: Partial<JWTAuthenticator['claimMappings']>, rest: Partial<JWTAuthenticator> = {}) =>
  cfg(jwt({ claimMappings: { username: { claim: 'sub', prefix: '' }, ...m }, ...rest }));
const EMAIL_RULE =
  'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression';
const RFC1123 =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// [name, config, expected errors in emission order]
const cases: Array<[string, AuthenticationConfiguration, string[]]> = [
  ['valid minimal', cfg(jwt()), []],
  ['empty jwt list', { jwt: [] }, []],
  [
    'more than 64 authenticators',
    cfg(...Array.from({ length: 65 }, (_, i) => jwt({}, { url: `https://i${i}.example.com` }))),
    ['jwt: Too many: 65: must have at most 64 items'],
  ],
  ['url required', cfg(jwt({}, { url: '' })), ['jwt[0].issuer.url: Required value: URL is required']],
  ['url scheme', cfg(jwt({}, { url: 'http://x' })), ['jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https']],
  [
    'url userinfo, query and fragment',
    cfg(jwt({}, { url: 'https://u:p@x/?a=b#f' })),
    [
      'jwt[0].issuer.url: Invalid value: "https://u:p@x/?a=b#f": URL must not contain a username or password',
      'jwt[0].issuer.url: Invalid value: "https://u:p@x/?a=b#f": URL must not contain a query',
      'jwt[0].issuer.url: Invalid value: "https://u:p@x/?a=b#f": URL must not contain a fragment',
    ],
  ],
  ['bare ? and # are no query or fragment', cfg(jwt({}, { url: 'https://x/?#' })), []],
  [
    'url parse error',
    cfg(jwt({}, { url: 'https://x:port' })),
    ['jwt[0].issuer.url: Invalid value: "https://x:port": parse "https://x:port": invalid port ":port" after host'],
  ],
  [
    'url missing scheme',
    cfg(jwt({}, { url: ':x' })),
    ['jwt[0].issuer.url: Invalid value: ":x": parse ":x": missing protocol scheme'],
  ],
  [
    'discoveryURL equal to url',
    cfg(jwt({}, { discoveryURL: 'https://issuer.example.com/' })),
    ['jwt[0].issuer.discoveryURL: Invalid value: "https://issuer.example.com/": discoveryURL must be different from URL'],
  ],
  [
    'discoveryURL scheme',
    cfg(jwt({}, { discoveryURL: 'http://d/.well-known/openid-configuration' })),
    ['jwt[0].issuer.discoveryURL: Invalid value: "http://d/.well-known/openid-configuration": URL scheme must be https'],
  ],
  [
    'duplicate issuer url and discoveryURL',
    cfg(jwt({}, { discoveryURL: 'https://d' }), jwt({}, { discoveryURL: 'https://d' })),
    ['jwt[1].issuer.url: Duplicate value: "https://issuer.example.com"', 'jwt[1].issuer.discoveryURL: Duplicate value: "https://d"'],
  ],
  [
    'audiences required',
    cfg(jwt({}, { audiences: [] })),
    ['jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required'],
  ],
  [
    'empty and duplicate audiences',
    cfg(jwt({}, { audiences: ['a', '', 'a'], audienceMatchPolicy: 'MatchAny' })),
    ["jwt[0].issuer.audiences[1]: Required value: audience can't be empty", 'jwt[0].issuer.audiences[2]: Duplicate value: "a"'],
  ],
  [
    'several audiences need MatchAny',
    cfg(jwt({}, { audiences: ['a', 'b'] })),
    ['jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences'],
  ],
  ['several audiences with MatchAny', cfg(jwt({}, { audiences: ['a', 'b'], audienceMatchPolicy: 'MatchAny' })), []],
  [
    'single audience with unknown policy',
    cfg(jwt({}, { audienceMatchPolicy: 'MatchAll' })),
    ['jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience'],
  ],
  [
    'certificateAuthority without certificates',
    cfg(jwt({}, { certificateAuthority: 'not a pem' })),
    ['jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates'],
  ],
  [
    'claim rule: claim and expression',
    cfg(jwt({ claimValidationRules: [{ claim: 'c', expression: 'true' }] })),
    ['jwt[0].claimValidationRules[0]: Invalid value: "c": claim and expression can\'t both be set'],
  ],
  [
    'claim rule: neither',
    cfg(jwt({ claimValidationRules: [{}] })),
    ['jwt[0].claimValidationRules[0]: Required value: claim or expression is required'],
  ],
  [
    'claim rule: message with claim, duplicate claim',
    cfg(jwt({ claimValidationRules: [{ claim: 'c', message: 'm' }, { claim: 'c' }] })),
    [
      'jwt[0].claimValidationRules[0].message: Invalid value: "m": message can\'t be set when claim is set',
      'jwt[0].claimValidationRules[1].claim: Duplicate value: "c"',
    ],
  ],
  [
    'claim rule: requiredValue with expression, duplicate expression',
    cfg(jwt({ claimValidationRules: [{ expression: "claims.foo == 'bar'", requiredValue: 'v' }, { expression: "claims.foo == 'bar'" }] })),
    [
      'jwt[0].claimValidationRules[0].requiredValue: Invalid value: "v": requiredValue can\'t be set when expression is set',
      'jwt[0].claimValidationRules[1].expression: Duplicate value: "claims.foo == \'bar\'"',
    ],
  ],
  [
    'claim rule: compile error and non-bool',
    cfg(jwt({ claimValidationRules: [{ expression: 'foo.bar' }, { expression: 'claims.foo' }] })),
    [
      "jwt[0].claimValidationRules[0].expression: Invalid value: \"foo.bar\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo.bar\n | ^",
      'jwt[0].claimValidationRules[1].expression: Invalid value: "claims.foo": must evaluate to bool',
    ],
  ],
  [
    'claim rule: user is not declared for claims',
    cfg(jwt({ claimValidationRules: [{ expression: "user.username == 'x'" }] })),
    [
      "jwt[0].claimValidationRules[0].expression: Invalid value: \"user.username == 'x'\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'user' (in container '')\n | user.username == 'x'\n | ^",
    ],
  ],
  [
    'username: claim and expression',
    cm({ username: { claim: 'sub', expression: 'claims.sub' } }),
    ['jwt[0].claimMappings.username: Invalid value: "": claim and expression can\'t both be set'],
  ],
  ['username: neither', cm({ username: {} }), ['jwt[0].claimMappings.username: Required value: claim or expression is required']],
  [
    'username: prefix with expression',
    cm({ username: { expression: 'claims.sub', prefix: 'p:' } }),
    ['jwt[0].claimMappings.username.prefix: Invalid value: "p:": prefix can\'t be set when expression is set'],
  ],
  [
    'username and groups: claim without prefix',
    cm({ username: { claim: 'sub' }, groups: { claim: 'groups' } }),
    [
      'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
      'jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
    ],
  ],
  ['groups and uid may be empty', cm({ groups: {}, uid: {} }), []],
  [
    'uid: claim and expression',
    cm({ uid: { claim: 'sub', expression: 'claims.sub' } }),
    ['jwt[0].claimMappings.uid: Invalid value: "": claim and expression can\'t both be set'],
  ],
  [
    'mapping expressions accept any type but must compile',
    cm({ username: { expression: 'claims.sub' }, groups: { expression: 'claims.groups' }, uid: { expression: 'claims +' } }),
    [
      'jwt[0].claimMappings.uid.expression: Invalid value: "claims +": compilation failed: ERROR: <input>:1:9: Unexpected token: EOF\n | claims +\n | ........^',
    ],
  ],
  [
    'extra keys',
    cm({
      extra: [
        { key: '', valueExpression: '"a"' },
        { key: 'foo', valueExpression: '"a"' },
        { key: 'example.org/Foo', valueExpression: '"a"' },
        { key: 'k8s.io/foo', valueExpression: '"a"' },
        { key: 'sub.kubernetes.io/foo', valueExpression: '"a"' },
        { key: 'Bad_Domain/foo', valueExpression: '"a"' },
        { key: 'example.org/a b', valueExpression: '"a"' },
      ],
    }),
    [
      'jwt[0].claimMappings.extra[0].key: Required value',
      'jwt[0].claimMappings.extra[1].key: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")',
      'jwt[0].claimMappings.extra[2].key: Invalid value: "example.org/Foo": key must be lowercase',
      'jwt[0].claimMappings.extra[3].key: Invalid value: "k8s.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
      'jwt[0].claimMappings.extra[4].key: Invalid value: "sub.kubernetes.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
      `jwt[0].claimMappings.extra[5].key: Invalid value: "Bad_Domain": ${RFC1123}`,
      'jwt[0].claimMappings.extra[5].key: Invalid value: "Bad_Domain/foo": key must be lowercase',
      "jwt[0].claimMappings.extra[6].key: Invalid value: \"a b\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
    ],
  ],
  [
    'extra: duplicate key skipped, valueExpression required',
    cm({
      extra: [
        { key: 'example.org/foo', valueExpression: '"a"' },
        { key: 'example.org/foo', valueExpression: 'not compiled +' },
        { key: 'example.org/bar', valueExpression: '' },
      ],
    }),
    [
      'jwt[0].claimMappings.extra[1].key: Duplicate value: "example.org/foo"',
      'jwt[0].claimMappings.extra[2].valueExpression: Required value: valueExpression is required',
    ],
  ],
  [
    'email rule: claims.email without email_verified',
    cm({ username: { expression: 'claims.email' } }),
    [`jwt[0].claimMappings.username.expression: Invalid value: "claims.email": ${EMAIL_RULE}`],
  ],
  [
    'email rule: optional select and has() count',
    cm({ username: { expression: 'has(claims.email) ? claims.?email.orValue("") : ""' } }),
    [`jwt[0].claimMappings.username.expression: Invalid value: "has(claims.email) ? claims.?email.orValue(\\"\\") : \\"\\"": ${EMAIL_RULE}`],
  ],
  ['email rule: satisfied in the username expression', cm({ username: { expression: "claims.email_verified ? claims.email : ''" } }), []],
  [
    'email rule: satisfied by a claim validation rule',
    cm({ username: { expression: 'claims.email' } }, { claimValidationRules: [{ expression: 'claims.email_verified == true' }] }),
    [],
  ],
  [
    'email rule: satisfied by an extra mapping',
    cm({ username: { expression: 'claims.email' }, extra: [{ key: 'example.org/v', valueExpression: 'string(claims.email_verified)' }] }),
    [],
  ],
  ['email rule: index syntax does not count', cm({ username: { expression: 'claims["email"]' } }), []],
  ['email rule: not for claim mappings', cm({ username: { claim: 'email', prefix: '' } }), []],
  [
    'user validation rules',
    cfg(
      jwt({
        userValidationRules: [
          { expression: '' },
          { expression: "!user.username.startsWith('system:')" },
          { expression: "!user.username.startsWith('system:')" },
          { expression: 'user.username' },
          { expression: 'user.unknown == ""' },
        ],
      }),
    ),
    [
      'jwt[0].userValidationRules[0].expression: Required value: expression is required',
      'jwt[0].userValidationRules[2].expression: Duplicate value: "!user.username.startsWith(\'system:\')"',
      'jwt[0].userValidationRules[3].expression: Invalid value: "user.username": must evaluate to bool',
      "jwt[0].userValidationRules[4].expression: Invalid value: \"user.unknown == \\\"\\\"\": compilation failed: ERROR: <input>:1:6: undefined field 'unknown'\n | user.unknown == \"\"\n | .....^",
    ],
  ],
  [
    'anonymous: conditions need enabled',
    { anonymous: { enabled: false, conditions: [{ path: '/livez' }, { path: '/readyz' }] } },
    [
      'anonymous.conditions: Invalid value: []apiserver.AnonymousAuthCondition{apiserver.AnonymousAuthCondition{Path:"/livez"}, apiserver.AnonymousAuthCondition{Path:"/readyz"}}: enabled should be set to true when conditions are defined',
    ],
  ],
  ['anonymous: enabled with conditions', { anonymous: { enabled: true, conditions: [{ path: '/livez' }] } }, []],
];

const withMeta = (c: AuthenticationConfiguration) => ({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', ...c });

describe('AuthenticationConfiguration validation', () => {
  test.each(cases)('validator: %s', (_name, c, expected) => {
    expect(validateAuthenticationConfiguration(structuredClone(c)).map((e) => e.message)).toEqual(expected);
  });

  test.each(cases.flatMap(([n, c, e]) => (['json', 'yaml'] as const).map((f) => [n, f, c, e] as const)))(
    'file (%s, %s)',
    (_name, format, c, expected) => {
      const path = tmp.writeDoc(withMeta(c), format);
      expect(loadErrors(() => loadAuthenticationConfigurationFile(path))).toEqual(expected);
    },
  );

  test('disallowed issuers (the service-account issuers)', () => {
    expect(
      validateAuthenticationConfiguration(cfg(jwt()), { disallowedIssuers: ['https://sa.example.com', 'https://issuer.example.com'] }).map(
        (e) => e.message,
      ),
    ).toEqual([
      'jwt[0].issuer.url: Invalid value: "https://issuer.example.com": URL must not overlap with disallowed issuers: [https://issuer.example.com https://sa.example.com]',
    ]);
  });

  test('with StructuredAuthenticationConfiguration off, structured features are rejected', () => {
    const c = cfg(
      jwt(
        {
          claimMappings: { username: { expression: 'claims.sub' }, uid: { claim: 'sub' } },
          userValidationRules: [{ expression: 'true' }],
        },
        { discoveryURL: 'https://d', audiences: ['a', 'b'], audienceMatchPolicy: 'MatchAny' },
      ),
    );
    const off = 'not supported when StructuredAuthenticationConfiguration feature gate is disabled';
    expect(
      validateAuthenticationConfiguration(c, { featureGates: { StructuredAuthenticationConfiguration: false } }).map((e) => e.message),
    ).toEqual([
      `jwt[0].issuer.discoveryURL: Invalid value: "https://d": discoveryURL is ${off}`,
      `jwt[0].issuer.audiences: Invalid value: []string{"a", "b"}: multiple audiences are ${off}`,
      `jwt[0].claimMappings.username.expression: Invalid value: "claims.sub": expression is ${off}`,
      `jwt[0].claimMappings.uid: Invalid value: "": uid claim mapping is ${off}`,
      `jwt[0].userValidationRules: Invalid value: "": user validation rules are ${off}`,
    ]);
  });

  test('the loaded object carries compiled programs that evaluate many times', () => {
    const path = tmp.writeDoc(
      withMeta(
        cfg(
          jwt({
            claimValidationRules: [{ expression: "claims.email_verified == true && claims.email.endsWith('@example.com')" }],
            claimMappings: { username: { expression: "claims.email_verified ? claims.email : ''" }, groups: { expression: 'claims.groups' } },
            userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'no system users' }],
          }),
        ),
      ),
      'yaml',
    );
    const c = loadAuthenticationConfigurationFile(path);
    const a = c.jwt![0]!;
    const claims = { email: 'ann@example.com', email_verified: true, groups: ['g'] };
    expect(a.claimValidationRules![0]!.compiled!.evaluate({ claims })).toBe(true);
    expect(a.claimValidationRules![0]!.compiled!.evaluate({ claims: { ...claims, email: 'x@evil.com' } })).toBe(false);
    expect(a.claimMappings.username.compiled!.evaluate({ claims })).toBe('ann@example.com');
    expect(a.claimMappings.groups!.compiled!.evaluate({ claims })).toEqual(['g']);
    expect(a.userValidationRules![0]!.compiled!.evaluate({ user: { username: 'system:x', uid: '', groups: [], extra: {} } })).toBe(false);
    // the programs are not part of the document
    expect(JSON.parse(JSON.stringify(a.claimValidationRules![0]))).toEqual({
      claim: '',
      requiredValue: '',
      expression: "claims.email_verified == true && claims.email.endsWith('@example.com')",
      message: '',
    });
  });
});
