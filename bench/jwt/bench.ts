// bench/jwt: JWT verification throughput of @cl/jwt-authn against a baseline measured in the same run.
//   baseline  raw node:crypto verify of the very same signatures (no parsing, no claims, no mapping)
//   miss      first-time verification through the API server's cached chain (every token distinct), called as the
//             bearer-token authenticator calls it (a value when no I/O was needed)
//   hit       the same token again (token cache hit)
// Run: node -r @swc-node/register bench/jwt/bench.ts [--tokens N] [--alg RS256|ES256]
// (needs `nx build jwt-authn`; the issuer is a local TLS server that serves discovery and the JWKS.)
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { cachedTokenAuthenticator } from '@cl/auth';
import { JwtAuthenticators } from '@cl/jwt-authn';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const N = Number(arg('tokens', '20000'));
const ALG = arg('alg', 'RS256');

function tls() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-jwt-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', 'k.pem', '-out', 'c.pem'], { cwd: dir, stdio: 'pipe' });
  const out = { cert: readFileSync(join(dir, 'c.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
  rmSync(dir, { recursive: true, force: true });
  return out;
}

function signer(alg: string): { key: KeyObject; jwk: Record<string, unknown>; sign(input: string): Buffer; hash: string; opts: object } {
  const pair = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'bench' };
  const opts = alg === 'ES256' ? { dsaEncoding: 'ieee-p1363' as const } : {};
  return { key: pair.publicKey, jwk, hash: 'sha256', opts, sign: (input) => sign('sha256', Buffer.from(input), { key: pair.privateKey, ...opts }) };
}

// Every timed section starts from a collected heap, so no section pays for garbage the one before it left
// (the uncached and hit sections allocate far more than the raw baseline).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

async function timed(fn: () => Promise<void> | void): Promise<number> {
  collect();
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function main() {
  const cert = tls();
  const s = signer(ALG);
  const server = createServer(cert, (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/keys` }));
    else if (req.url === '/keys') res.end(JSON.stringify({ keys: [s.jwk] }));
    else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const header = b64({ alg: ALG, kid: 'bench', typ: 'JWT' });
  const tokens: { input: string; sig: Buffer; token: string }[] = [];
  for (let i = 0; i < N; i++) {
    const input = `${header}.${b64({ iss: url, aud: 'bench-client', sub: `user-${i}`, exp, iat: exp - 3600, groups: ['dev', 'ops'], jti: createHash('sha1').update(String(i)).digest('hex') })}`;
    const sig = s.sign(input);
    // A flat string, as a token cut from a request header is (a concatenation would be flattened on first use).
    tokens.push({ input, sig, token: Buffer.from(`${input}.${sig.toString('base64url')}`, 'latin1').toString('latin1') });
  }

  const authenticators = new JwtAuthenticators(
    [{ issuer: { url, audiences: ['bench-client'], certificateAuthority: cert.cert }, claimMappings: { username: { claim: 'sub', prefix: '' }, groups: { claim: 'groups', prefix: '' } } }],
    { log: () => undefined },
  );
  await authenticators.waitUntilHealthy(10_000, 50);
  const cached = cachedTokenAuthenticator(authenticators, { successTtlMs: 10_000, failureTtlMs: 0 });
  // Warm-up: fetch the JWKS, JIT both paths (these tokens are then not reused for the miss run).
  const warm = Math.min(2000, Math.floor(N / 5));
  for (let i = 0; i < warm; i++) {
    verify(s.hash, Buffer.from(tokens[i].input), { key: s.key, ...s.opts }, tokens[i].sig);
    await cached.authenticateTokenMaybeSync(tokens[i].token);
  }
  const rest = tokens.slice(warm);

  // Interleaved rounds (baseline, miss, uncached, hit on fresh slices each round), so load from other processes
  // hits both sides alike; the median round is reported.
  const ROUNDS = 7;
  const per = Math.floor(rest.length / ROUNDS);
  console.log(`bench/jwt  alg=${ALG}  ${ROUNDS} rounds x ${per} tokens  node ${process.version}`);
  const rounds: { raw: number; miss: number; direct: number; hit: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const slice = rest.slice(r * per, (r + 1) * per);
    const rawMs = await timed(() => {
      for (const t of slice) if (!verify(s.hash, Buffer.from(t.input), { key: s.key, ...s.opts }, t.sig)) throw new Error('bad signature');
    });
    // As the API server's bearer-token authenticator calls the cache: a value when no I/O was needed.
    const missMs = await timed(async () => {
      for (const t of slice) {
        const r = cached.authenticateTokenMaybeSync(t.token);
        if (!(r instanceof Promise ? await r : r)) throw new Error('rejected');
      }
    });
    const directMs = await timed(async () => {
      for (const t of slice) if (!(await authenticators.authenticateToken(t.token))) throw new Error('rejected');
    });
    const hitMs = await timed(async () => {
      for (let i = 0; i < per * 5; i++) {
        const r = cached.authenticateTokenMaybeSync(slice[0].token);
        if (!(r instanceof Promise ? await r : r)) throw new Error('rejected');
      }
    });
    rounds.push({ raw: (per / rawMs) * 1000, miss: (per / missMs) * 1000, direct: (per / directMs) * 1000, hit: ((per * 5) / hitMs) * 1000 });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const raw = median(rounds.map((x) => x.raw));
  const miss = median(rounds.map((x) => x.miss));
  const direct = median(rounds.map((x) => x.direct));
  const hit = median(rounds.map((x) => x.hit));
  const missRatio = median(rounds.map((x) => x.miss / x.raw));
  const hitRatio = median(rounds.map((x) => x.hit / x.raw));
  const line = (label: string, v: number) => console.log(`${label.padEnd(50)} ${v.toFixed(0).padStart(9)} tokens/s (median round)`);
  line('raw crypto.verify of the same signatures (baseline)', raw);
  line('cache miss: full verification + mapping', miss);
  line('  (the same, authenticators without the cache)', direct);
  line('cache hit', hit);
  console.log(`miss / raw verify = ${missRatio.toFixed(2)}   (target >= 0.80; median of per-round ratios)`);
  console.log(`hit  / raw verify = ${hitRatio.toFixed(2)}`);
  console.log(JSON.stringify({ bench: 'jwt', alg: ALG, rounds: ROUNDS, tokensPerRound: per, rawVerifyPerSec: Math.round(raw), missPerSec: Math.round(miss), uncachedPerSec: Math.round(direct), hitPerSec: Math.round(hit), missOverRaw: Number(missRatio.toFixed(3)), hitOverRaw: Number(hitRatio.toFixed(3)) }));
  authenticators.close();
  server.close();
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
