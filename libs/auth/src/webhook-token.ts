// plugin/pkg/authenticator/token/webhook: asks a remote server (normally the API server) whether a
// bearer token is valid by POSTing an authentication.k8s.io TokenReview. Used by the node agent.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AuthResponse, TokenAuthenticator, UserInfo } from './types';

export interface WebhookTokenOptions {
  /** Full URL of the TokenReview endpoint, e.g. https://127.0.0.1:6443/apis/authentication.k8s.io/v1/tokenreviews */
  url: string;
  /** PEM CA bundle that signs the server certificate. */
  ca?: string | Buffer;
  /** Client certificate and key (PEM) to authenticate this caller. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** A bearer token to authenticate this caller (instead of, or in addition to, a certificate). */
  bearerToken?: string;
  /** Audiences to ask for; when set, the response must intersect them. */
  audiences?: string[];
  /** authentication.k8s.io version to speak. */
  version?: 'v1' | 'v1beta1';
  timeoutMs?: number;
  /** Largest response accepted. */
  maxResponseBytes?: number;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

function post(opts: WebhookTokenOptions, body: string): Promise<{ status: number; body: string }> {
  const u = new URL(opts.url);
  const isHttps = u.protocol === 'https:';
  const send = isHttps ? httpsRequest : httpRequest;
  const maxBytes = opts.maxResponseBytes ?? 4 << 20;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    if (opts.bearerToken) headers.authorization = `Bearer ${opts.bearerToken}`;
    const req = send(
      u,
      { method: 'POST', headers, ...(isHttps ? { ca: opts.ca, cert: opts.cert, key: opts.key } : {}), timeout: opts.timeoutMs ?? 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            req.destroy(new Error(`token review response larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('token review request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

function toUser(u: NonNullable<TokenReviewStatus['user']>): UserInfo {
  return { username: u.username ?? '', uid: u.uid ?? '', groups: u.groups ?? [], extra: u.extra ?? {} };
}

export function webhookTokenAuthenticator(opts: WebhookTokenOptions): TokenAuthenticator {
  const apiVersion = `authentication.k8s.io/${opts.version ?? 'v1'}`;
  return {
    async authenticateToken(token: string): Promise<AuthResponse | null> {
      const review = {
        apiVersion,
        kind: 'TokenReview',
        metadata: { creationTimestamp: null },
        spec: { token, ...(opts.audiences?.length ? { audiences: opts.audiences } : {}) },
        status: { user: {} },
      };
      const res = await post(opts, JSON.stringify(review));
      if (res.status < 200 || res.status > 299) {
        throw new Error(`token review failed with status code ${res.status}`);
      }
      let status: TokenReviewStatus;
      try {
        status = ((JSON.parse(res.body) as { status?: TokenReviewStatus }).status ?? {}) as TokenReviewStatus;
      } catch (e) {
        throw new Error(`unable to decode token review response: ${(e as Error).message}`);
      }
      if (!status.authenticated) {
        if (status.error) throw new Error(status.error);
        return null;
      }
      let audiences = status.audiences;
      if (opts.audiences?.length) {
        const got = status.audiences ?? [];
        const matched = opts.audiences.filter((a) => got.includes(a));
        if (got.length > 0 && matched.length === 0) {
          throw new Error(`token audiences ${JSON.stringify(got)} is invalid for the target audiences ${JSON.stringify(opts.audiences)}`);
        }
        audiences = got.length > 0 ? matched : opts.audiences;
      }
      return { user: toUser(status.user ?? {}), ...(audiences ? { audiences } : {}) };
    },
  };
}
