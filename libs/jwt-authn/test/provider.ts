// Runs the real oidc-provider fixture as a child process and talks to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { request } from 'node:https';
import { join } from 'node:path';

export function providerKey(kid: string): Record<string, unknown> {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return { ...jwk, kid, use: 'sig', alg: 'RS256' };
}

export class OidcProviderProcess {
  url = '';
  port = 0;
  private child: ChildProcess | null = null;

  constructor(private readonly tls: { cert: string; key: string; ca: string }) {}

  async start(keys: Record<string, unknown>[], port = 0): Promise<void> {
    const child = spawn(process.execPath, [join(__dirname, 'fixtures', 'oidc-provider.mjs')], {
      env: { ...process.env, TLS_CERT: this.tls.cert, TLS_KEY: this.tls.key, JWKS: JSON.stringify({ keys }), PORT: String(port), CLIENT_ID: 'my-client' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let err = '';
    child.stderr!.on('data', (c) => (err += c));
    this.port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c) => {
        out += c;
        const m = /READY (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', (code) => reject(new Error(`oidc-provider exited with ${code}: ${err}`)));
    });
    this.url = `https://127.0.0.1:${this.port}`;
  }

  /** An ID token for my-client, issued and signed by the provider itself. */
  mint(claims: Record<string, unknown>): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request(`${this.url}/__test/id-token`, { method: 'POST', ca: this.tls.ca, agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(body))));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ claims }));
    });
  }

  async stop(): Promise<void> {
    const c = this.child;
    this.child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((r) => {
      c.once('exit', () => r());
      c.kill('SIGTERM');
    });
  }
}
