// Table tests of the token claims and lifetimes, the flag validation and the authenticator's decisions.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@cl/apimachinery';
import { checkClaims, serviceAccountTokenAuthenticator, serviceAccountUser } from './authenticator';
import { EXPIRATION_EXTENSION_SECONDS, expirationSecondsErrors, tokenClaims, type TokenClaimsInput } from './claims';
import { serviceAccountOptions, validateServiceAccountOptions, type ServiceAccountOptions } from './flags';
import { TokenIssuer } from './issuer';
import { tokenRequestSpecFromProtobuf } from './token-request-protobuf';
import { generatedSigningKey, keyIdOf, loadIssuerKeys, publicKeysFromPem, signingKeyFromPem } from './keys';
import type { BoundResource, ObjectLookup } from './lookup';

const options = (o: Partial<ServiceAccountOptions> = {}): ServiceAccountOptions => ({
  ...serviceAccountOptions({
    'service-account-issuer': [], 'service-account-signing-key-file': '', 'service-account-key-file': [], 'api-audiences': [],
    'service-account-max-token-expiration': 0, 'service-account-extend-token-expiration': true, 'service-account-lookup': true, 'service-account-jwks-uri': '',
  }),
  ...o,
});

const NOW = 1_800_000_000;
const base: TokenClaimsInput = {
  issuer: 'https://iss', audiences: ['https://iss'], now: NOW, expirationSeconds: 3600, maxExpirationSeconds: 0, extendExpiration: true,
  apiAudiences: ['https://iss'], namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, jti: 'j1',
};
const pod = { name: 'p', uid: 'pod-uid' };

describe('tokenClaims', () => {
  test.each([
    ['a plain request', {}, 3600, 3600, undefined],
    ['the admission 3607 s pod-bound token is extended to a year and warns after 3607 s', { expirationSeconds: 3607, pod }, EXPIRATION_EXTENSION_SECONDS, 3607, NOW + 3607],
    ['no extension without a pod', { expirationSeconds: 3607 }, 3607, 3607, undefined],
    ['no extension with the flag off', { expirationSeconds: 3607, pod, extendExpiration: false }, 3607, 3607, undefined],
    ['no extension for another audience', { expirationSeconds: 3607, pod, audiences: ['x'] }, 3607, 3607, undefined],
    ['shortened to the maximum', { expirationSeconds: 90_000, maxExpirationSeconds: 7200 }, 7200, 7200, undefined],
  ] as Array<[string, Partial<TokenClaimsInput>, number, number, number | undefined]>)('%s', (_, over, lifetime, reported, warnafter) => {
    const r = tokenClaims({ ...base, ...over });
    expect(r.claims.exp - r.claims.iat).toBe(lifetime);
    expect(r.reportedExpirationSeconds).toBe(reported);
    expect(r.claims['kubernetes.io'].warnafter).toBe(warnafter);
  });

  test('claims as upstream: subject, private claim with the bound pod and node', () => {
    const { claims } = tokenClaims({ ...base, pod, node: { name: 'n1', uid: 'node-uid' } });
    expect(claims).toEqual({
      iss: 'https://iss', sub: 'system:serviceaccount:ns:sa', aud: ['https://iss'], exp: NOW + 3600, iat: NOW, nbf: NOW, jti: 'j1',
      'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' }, pod, node: { name: 'n1', uid: 'node-uid' } },
    });
  });

  test('a shortened request carries upstream warning text', () => {
    expect(tokenClaims({ ...base, expirationSeconds: 90_000, maxExpirationSeconds: 7200 }).warning).toBe('requested expiration of 90000 seconds shortened to 7200 seconds');
  });

  test.each([[599, ['may not specify a duration less than 10 minutes']], [600, []], [2 ** 32, []], [2 ** 32 + 1, ['may not specify a duration larger than 2^32 seconds']]])('expirationSeconds %d', (s, errs) => {
    expect(expirationSecondsErrors(s)).toEqual(errs);
  });
});

describe('validateServiceAccountOptions', () => {
  test.each([
    ['the embedded default', {}, []],
    ['an issuer without a signing key', { issuers: ['https://a'] }, ['service-account-signing-key-file and service-account-issuer are required flags']],
    ['a signing key without an issuer', { signingKeyFile: '/k' }, ['service-account-signing-key-file and service-account-issuer are required flags']],
    ['every problem at once', { issuers: ['https://a', 'https://a', '', 'http://[bad'], signingKeyFile: '/k', maxExpirationMs: 60_000, jwksUri: 'http://x/jwks' }, [
      'service-account-issuer "https://a" is already specified',
      'service-account-issuer should not be an empty string',
      expect.stringContaining('service-account-issuer "http://[bad" contained a \':\' but was not a valid URL: '),
      'service-account-jwks-uri requires https scheme, parsed as: http://x/jwks',
      'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds',
    ]],
  ] as Array<[string, Partial<ServiceAccountOptions>, unknown[]]>)('%s', (_, over, errs) => {
    expect(validateServiceAccountOptions(options(over))).toEqual(errs);
  });
});

describe('keys', () => {
  test('the generated key is made once, kept with mode 0600 and reused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-keys-'));
    try {
      const first = generatedSigningKey(dir);
      expect(first.created).toBe(true);
      expect(statSync(first.file).mode & 0o777).toBe(0o600);
      const again = generatedSigningKey(dir);
      expect(again.created).toBe(false);
      expect(again.key.kid).toBe(first.key.kid);
      expect(first.key.alg).toBe('RS256');
      expect(signingKeyFromPem(readFileSync(first.file, 'utf8')).kid).toBe(first.key.kid);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a key file may hold several public and private keys; other blocks are skipped', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = [ec.publicKey.export({ type: 'spki', format: 'pem' }), '-----BEGIN CERTIFICATE REQUEST-----\nAA==\n-----END CERTIFICATE REQUEST-----\n', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' })].join('');
    expect(publicKeysFromPem(pem, 'f').map((k) => [k.alg, k.kid])).toEqual([['ES384', keyIdOf(ec.publicKey)], ['RS256', keyIdOf(rsa.publicKey)]]);
    expect(() => publicKeysFromPem('nothing', 'f')).toThrow('data does not contain any valid RSA or ECDSA public keys (f)');
  });

  test('the embedded default: the generated key signs as the in-cluster issuer and verifies, even beside key files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-keys-'));
    try {
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
      const otherFile = join(dir, 'other.pub');
      writeFileSync(otherFile, other);
      const errors: string[] = [];
      const keys = loadIssuerKeys({ signingKeyFile: '', keyFiles: [otherFile], certDir: dir }, errors)!;
      expect(errors).toEqual([]);
      const issuer = new TokenIssuer(options(), keys);
      expect(issuer.issuer).toBe('https://kubernetes.default.svc.cluster.local');
      const t = await issuer.sign(tokenClaims({ ...base, issuer: issuer.issuer, audiences: issuer.apiAudiences, apiAudiences: issuer.apiAudiences }).claims);
      const lookup: ObjectLookup = { get: async () => ({ metadata: { uid: 'sa-uid' } }) };
      const res = await serviceAccountTokenAuthenticator(issuer, lookup, { now: () => NOW }).authenticateToken(t);
      expect(res?.user.username).toBe('system:serviceaccount:ns:sa');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('unreadable files are reported with upstream wording', () => {
    const errors: string[] = [];
    expect(loadIssuerKeys({ signingKeyFile: '/nonexistent/sa.key', keyFiles: ['/nonexistent/sa.pub'], certDir: '/unused' }, errors)).toBeNull();
    expect(errors).toEqual([
      'failed to parse service-account-issuer-key-file: open /nonexistent/sa.key: no such file or directory',
      'failed to parse service-account-key-file: open /nonexistent/sa.pub: no such file or directory',
    ]);
  });
});

describe('the service account authenticator', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const signing = signingKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const other = signingKeyFromPem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const issuer = new TokenIssuer(options({ issuers: ['https://iss'], signingKeyFile: '/k' }), { signing, verification: [{ key: signing.key, kid: signing.kid, alg: signing.alg }] });
  const forger = new TokenIssuer(options({ issuers: ['https://iss'], signingKeyFile: '/k' }), { signing: other, verification: [] });
  const objects = new Map<string, KubeObject>();
  const lookup: ObjectLookup = { get: async (r: BoundResource, ns: string, name: string) => objects.get(`${r}/${ns}/${name}`) };
  let now = NOW;
  const authn = serviceAccountTokenAuthenticator(issuer, lookup, { now: () => now });
  const put = (r: BoundResource, ns: string, name: string, uid: string, extra: Record<string, unknown> = {}) =>
    objects.set(`${r}/${ns}/${name}`, { metadata: { name, namespace: ns, uid, ...extra } });

  beforeEach(() => {
    objects.clear();
    now = NOW;
    put('serviceaccounts', 'ns', 'sa', 'sa-uid');
    put('pods', 'ns', 'p', 'pod-uid');
  });

  const token = (over: Partial<TokenClaimsInput> = {}, by = issuer) => by.sign(tokenClaims({ ...base, pod, ...over }).claims);

  test('a valid pod-bound token is the service account, with the pod in extra', async () => {
    const res = await authn.authenticateToken(await token());
    expect(res).toEqual({
      audiences: ['https://iss'],
      user: {
        username: 'system:serviceaccount:ns:sa', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
        extra: { 'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': ['pod-uid'], 'authentication.kubernetes.io/credential-id': ['JTI=j1'] },
      },
    });
  });

  test.each([
    ['another issuer is not ours (left to the next authenticator)', async () => token({ issuer: 'https://other' }), null],
    ['not a JWT at all', async () => 'anonymous-kubectl', null],
  ])('%s', async (_, make, want) => {
    expect(await authn.authenticateToken(await make())).toBe(want);
  });

  test.each([
    ['a signature by another key', () => token({}, forger), 'invalid bearer token'],
    ['an expired token (past the 60 s leeway)', () => { now = NOW + 3600 + 61; return token(); }, 'service account token has expired'],
    ['an audience the API does not accept', () => token({ audiences: ['x'] }), 'token audiences ["x"] is invalid for the target audiences ["https://iss"]'],
    ['a deleted service account', () => { objects.delete('serviceaccounts/ns/sa'); return token(); }, 'service account ns/sa has been deleted'],
    ['a re-created service account', () => { put('serviceaccounts', 'ns', 'sa', 'new'); return token(); }, 'service account UID (new) does not match claim (sa-uid)'],
    ['a deleted pod', () => { objects.delete('pods/ns/p'); return token(); }, 'pod ns/p has been deleted'],
    ['a re-created pod', () => { put('pods', 'ns', 'p', 'other'); return token(); }, 'pod UID (other) does not match claim (pod-uid)'],
    ['a pod deleting for more than 60 s', () => { put('pods', 'ns', 'p', 'pod-uid', { deletionTimestamp: new Date((NOW - 61) * 1000).toISOString() }); return token(); }, 'pod ns/p is being deleted'],
    ['a deleted bound secret', () => token({ pod: undefined, secret: { name: 's', uid: 's-uid' } }), 'secret ns/s has been deleted'],
  ])('rejects %s', async (_, make, message) => {
    const t = await make();
    await expect(authn.authenticateToken(t)).rejects.toThrow(message);
  });

  test('a pod deleting for less than 60 s still authenticates', async () => {
    put('pods', 'ns', 'p', 'pod-uid', { deletionTimestamp: new Date((NOW - 30) * 1000).toISOString() });
    expect(await authn.authenticateToken(await token())).not.toBeNull();
  });

  test('without --service-account-lookup the objects are not read', async () => {
    const noLookup = new TokenIssuer(options({ issuers: ['https://iss'], signingKeyFile: '/k', lookup: false }), issuer.keys);
    objects.clear();
    expect(await serviceAccountTokenAuthenticator(noLookup, lookup, { now: () => NOW }).authenticateToken(await token())).not.toBeNull();
  });

  test('a token without the private claim is refused', () => {
    const claims = tokenClaims(base).claims;
    expect(() => checkClaims({ ...claims, 'kubernetes.io': undefined } as never, issuer, NOW)).toThrow('service account token claims could not be retrieved');
  });

  test('node extras for a token with node info', () => {
    const u = serviceAccountUser(tokenClaims({ ...base, pod, node: { name: 'n1', uid: 'nu' } }).claims);
    expect(u.extra['authentication.kubernetes.io/node-name']).toEqual(['n1']);
    expect(u.extra['authentication.kubernetes.io/node-uid']).toEqual(['nu']);
  });
});

describe('tokenRequestSpecFromProtobuf', () => {
  const str = (no: number, s: string) => Buffer.concat([Buffer.from([(no << 3) | 2, Buffer.byteLength(s)]), Buffer.from(s)]);
  const msg = (no: number, b: Buffer) => Buffer.concat([Buffer.from([(no << 3) | 2, b.length]), b]);
  test('audiences, expirationSeconds and boundObjectRef as kubectl and client-go send them', () => {
    const ref = Buffer.concat([str(1, 'Pod'), str(2, 'v1'), str(3, 'p'), str(4, 'u')]);
    // expirationSeconds 3600 = varint 0x90 0x1c, field 4 wire 0.
    const spec = Buffer.concat([str(1, 'a'), str(1, 'b'), msg(3, ref), Buffer.from([4 << 3, 0x90, 0x1c])]);
    expect(tokenRequestSpecFromProtobuf(msg(2, spec))).toEqual({ audiences: ['a', 'b'], expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'u' } });
    expect(tokenRequestSpecFromProtobuf(Buffer.alloc(0))).toEqual({});
  });
});
