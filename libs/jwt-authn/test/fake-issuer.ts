// A scripted OpenID issuer over real TLS, like the HTTPS server of upstream's oidc_test.go: discovery,
// a JWKS the test can change, and distributed-claim endpoints that answer with JWTs signed by a test key.
import { createHash, generateKeyPairSync, sign as cryptoSign, constants, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { OutgoingHttpHeaders } from 'node:http';

export interface TestKey {
  name: string;
  kid: string;
  privateKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

export function makeKey(name: string, type: 'rsa' | 'P-256' | 'P-384' | 'P-521'): TestKey {
  const pair = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: type });
  const jwk = pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  // kid = hex(SHA-256 JWK thumbprint), as upstream's tests do.
  const members = jwk.kty === 'RSA' ? { e: jwk.e, kty: jwk.kty, n: jwk.n } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  const kid = createHash('sha256').update(JSON.stringify(members)).digest('hex');
  return { name, kid, privateKey: pair.privateKey, publicJwk: { ...jwk, kid } };
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

export function signJwt(claims: Record<string, unknown> | string, key: TestKey, alg = 'RS256', header: Record<string, unknown> = {}): string {
  const input = `${b64({ alg, kid: key.kid, ...header })}.${b64(claims)}`;
  const hash = `sha${alg.slice(2)}`;
  let sig: Buffer;
  if (alg.startsWith('PS')) sig = cryptoSign(hash, Buffer.from(input), { key: key.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
  else if (alg.startsWith('ES')) sig = cryptoSign(hash, Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  else sig = cryptoSign(hash, Buffer.from(input), key.privateKey);
  return `${input}.${sig.toString('base64url')}`;
}

export interface Route {
  status?: number;
  headers?: OutgoingHttpHeaders;
  body: string;
  /** Required Authorization header value. */
  auth?: string;
}

export class FakeIssuer {
  url = '';
  readonly routes = new Map<string, Route>();
  readonly hits = new Map<string, number>();
  private server!: Server;

  constructor(private readonly tls: { cert: string; key: string }) {}

  async start(): Promise<void> {
    this.server = createServer(this.tls, (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const r = this.routes.get(path);
      if (!r || (r.auth !== undefined && req.headers.authorization !== r.auth)) {
        res.statusCode = 404;
        res.end('404 page not found');
        return;
      }
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...(r.headers ?? {}) });
      res.end(r.body);
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves discovery at `path` naming `issuer` and the JWKS at /.testing/keys. */
  discovery(issuer = this.url, path = '/.well-known/openid-configuration'): void {
    this.routes.set(path, { body: JSON.stringify({ issuer, jwks_uri: `${this.url}/.testing/keys` }) });
  }

  keys(keys: TestKey[], headers: OutgoingHttpHeaders = {}): void {
    this.routes.set('/.testing/keys', { body: JSON.stringify({ keys: keys.map((k) => k.publicJwk) }), headers });
  }

  count(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
