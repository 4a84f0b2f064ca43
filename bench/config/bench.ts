// Run: node -r @swc-node/register bench/config/bench.ts   (after `nx build config`)
// 1. Load + validate a 40-issuer AuthenticationConfiguration with CEL rules: milliseconds per load.
// 2. CEL evaluations per second of a compiled claims check, against a plain JS closure doing the same
//    check in the same run (the baseline).
import { compileClaimValidationRule, claimsToCel } from '@cl/cel';
import { loadAuthenticationConfiguration } from '@cl/config';
import { stringify } from 'yaml';

const ISSUERS = 40;

function authenticationDocument(): string {
  const jwt = Array.from({ length: ISSUERS }, (_, i) => ({
    issuer: { url: `https://issuer-${i}.example.com`, audiences: [`app-${i}`, `app-${i}-alt`], audienceMatchPolicy: 'MatchAny' },
    claimValidationRules: [
      { expression: "claims.email_verified == true && claims.email.endsWith('@example.com')", message: 'email must be verified' },
      { expression: `claims.tenant == "tenant-${i}"` },
      { claim: 'hd', requiredValue: 'example.com' },
    ],
    claimMappings: {
      username: { expression: `"issuer-${i}:" + claims.email` },
      groups: { expression: 'claims.?groups.orValue([]).map(g, "oidc:" + g)' },
      uid: { expression: 'claims.sub' },
      extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
    },
    userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'no system users' }],
  }));
  return stringify({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration', jwt }, { version: '1.1' });
}

function timeLoads(text: string): { msPerLoad: number; loads: number } {
  for (let i = 0; i < 3; i++) loadAuthenticationConfiguration(text); // warm-up
  const loads = 30;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < loads; i++) loadAuthenticationConfiguration(text);
  return { msPerLoad: Number(process.hrtime.bigint() - t0) / 1e6 / loads, loads };
}

function perSecond(fn: (i: number) => unknown, seconds = 1): number {
  for (let i = 0; i < 10_000; i++) fn(i);
  let n = 0;
  const t0 = process.hrtime.bigint();
  const limit = BigInt(seconds * 1e9);
  let sink = 0;
  while (process.hrtime.bigint() - t0 < limit) {
    for (let k = 0; k < 1000; k++, n++) if (fn(n)) sink++;
  }
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  if (sink < 0) console.log(sink);
  return n / elapsed;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const text = authenticationDocument();
const load = timeLoads(text);
console.log(`AuthenticationConfiguration, ${ISSUERS} issuers with CEL rules (${(text.length / 1024).toFixed(1)} KiB YAML):`);
console.log(`  load + strict decode + validate + compile: ${load.msPerLoad.toFixed(2)} ms per load (${load.loads} loads)`);

const expression = "claims.email_verified == true && claims.email.endsWith('@example.com')";
const program = compileClaimValidationRule(expression);
const raw = Array.from({ length: 1024 }, (_, i) => ({
  sub: `user-${i}`,
  email: i % 3 === 0 ? `u${i}@elsewhere.org` : `u${i}@example.com`,
  email_verified: i % 5 !== 0,
  exp: 1_700_000_000 + i,
}));
const celClaims = raw.map(claimsToCel);
const closure = (c: { email_verified: boolean; email: string }) => c.email_verified === true && c.email.endsWith('@example.com');

// both must agree before they are timed
for (let i = 0; i < raw.length; i++) {
  if (program.evaluate({ claims: celClaims[i] }) !== closure(raw[i]!)) throw new Error(`mismatch at ${i}`);
}

const celRuns: number[] = [];
const jsRuns: number[] = [];
for (let r = 0; r < 5; r++) {
  celRuns.push(perSecond((i) => program.evaluate({ claims: celClaims[i & 1023] }), 0.6));
  jsRuns.push(perSecond((i) => closure(raw[i & 1023]!), 0.6));
}
const cel = median(celRuns);
const js = median(jsRuns);
console.log(`CEL "${expression}":`);
console.log(`  compiled CEL program: ${(cel / 1e6).toFixed(2)} M evaluations/s (median of 5)`);
console.log(`  plain JS closure:     ${(js / 1e6).toFixed(2)} M evaluations/s (baseline, same run)`);
console.log(`  CEL is ${(js / cel).toFixed(1)}x slower than the closure`);
console.log(
  JSON.stringify({
    bench: 'config',
    issuers: ISSUERS,
    msPerLoad: Number(load.msPerLoad.toFixed(3)),
    celEvalsPerSec: Math.round(cel),
    closureEvalsPerSec: Math.round(js),
    closureOverCel: Number((js / cel).toFixed(2)),
  }),
);
