// A small HTTPS GET client with an optional CA bundle and a hard timeout, shared by discovery, the JWKS
// and distributed claims (upstream uses one http.Client per authenticator: the issuer's CA, 30s timeout).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpResponse {
  status: number;
  /** Go's resp.Status form: `404 Not Found`. */
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpClientOptions {
  /** PEM CA bundle; the system roots when absent. */
  ca?: string;
  timeoutMs?: number;
  maxBodyBytes?: number;
}

export interface HttpClient {
  get(url: string, headers?: Record<string, string>): Promise<HttpResponse>;
}

export function httpClient(opts: HttpClientOptions = {}): HttpClient {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxBody = opts.maxBodyBytes ?? 4 << 20;
  return {
    get(url: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
      const wrap = (e: Error) => new Error(`Get ${JSON.stringify(url)}: ${e.message}`);
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return Promise.reject(wrap(new Error(`unsupported protocol scheme ""`)));
      }
      if (u.protocol !== 'https:' && u.protocol !== 'http:') {
        return Promise.reject(wrap(new Error(`unsupported protocol scheme ${JSON.stringify(u.protocol.replace(/:$/, ''))}`)));
      }
      const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise((resolve, reject) => {
        const req = send(u, { method: 'GET', headers, ...(opts.ca ? { ca: opts.ca } : {}), agent: false }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxBody) req.destroy(new Error(`response body larger than ${maxBody} bytes`));
            else chunks.push(c);
          });
          res.on('end', () => {
            clearTimeout(timer);
            const status = res.statusCode ?? 0;
            resolve({ status, statusText: `${status} ${res.statusMessage ?? ''}`.trim(), headers: res.headers, body: Buffer.concat(chunks) });
          });
          res.on('error', (e) => reject(wrap(e)));
        });
        const timer = setTimeout(() => req.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')), timeoutMs);
        req.on('error', (e) => {
          clearTimeout(timer);
          reject(wrap(e));
        });
        req.end();
      });
    },
  };
}

/** A WHATWG fetch over this client, for libraries that take a custom fetch (openid-client). */
export function fetchVia(client: HttpClient, rewrite: (url: string) => string = (u) => u): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = rewrite(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const res = await client.get(url, headers);
    const h = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const x of Array.isArray(v) ? v : [v]) h.append(k, x);
    }
    return new Response(new Uint8Array(res.body), { status: res.status, statusText: res.statusText.replace(/^\d+\s*/, ''), headers: h });
  }) as typeof fetch;
}
