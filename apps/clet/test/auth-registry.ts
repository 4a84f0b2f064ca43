// A loopback "registry" for the credential suites: it asks for Basic auth and records the Authorization
// header of every request, then answers 404 to authenticated ones. Enough to see credentials arrive through
// the runtime's pull (a registry that serves images is out of scope), so the pull itself fails.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthRegistry {
  port: number;
  /** The requests seen so far, in order, with their Authorization header. */
  seen: Array<{ path: string; authorization?: string }>;
  close(): Promise<void>;
}

/** The Authorization header a pull with these credentials sends. */
export const basicAuth = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

export async function startAuthRegistry(): Promise<AuthRegistry> {
  const seen: AuthRegistry['seen'] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (!req.headers.authorization) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="cl-test"', 'Docker-Distribution-API-Version': 'registry/2.0' });
      res.end();
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json', 'Docker-Distribution-API-Version': 'registry/2.0' });
    res.end('{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
