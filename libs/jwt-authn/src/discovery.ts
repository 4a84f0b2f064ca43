// OpenID discovery of an issuer: openid-client fetches and parses the document through our HTTP client
// (the issuer's CA, the discoveryURL override). Kubernetes compares the discovered issuer to `url` as a
// raw string, while openid-client normalises URLs, so the exact comparison is done here afterwards.
import { discovery, customFetch, None } from 'openid-client';
import { fetchVia, type HttpClient, type HttpResponse } from './http-client';
import { goQuote } from './go-text';

export interface DiscoveredProvider {
  issuer: string;
  jwksUri: string;
}

export function wellKnownURL(issuerURL: string): string {
  return issuerURL.replace(/\/+$/, '') + '/.well-known/openid-configuration';
}

/** Go-oidc's wording for a discovery response that openid-client rejected. */
function explain(res: HttpResponse | undefined, issuerURL: string, cause: Error): Error {
  if (!res) {
    // openid-client wraps transport failures ("something went wrong"); ours carry Go's `Get "<url>": ...`.
    let inner: Error = cause;
    while (inner.cause instanceof Error) inner = inner.cause;
    return inner;
  }
  const body = res.body.toString('utf8');
  if (res.status !== 200) return new Error(`${res.statusText}: ${body}`);
  let doc: { issuer?: unknown };
  try {
    doc = JSON.parse(body) as { issuer?: unknown };
  } catch (e) {
    const ct = String(res.headers['content-type'] ?? '');
    return new Error(
      ct.split(';')[0].trim() === 'application/json'
        ? `oidc: failed to decode provider discovery object: got Content-Type = application/json, but could not unmarshal as JSON: ${(e as Error).message}`
        : `oidc: failed to decode provider discovery object: expected Content-Type = application/json, got ${goQuote(ct)}: ${(e as Error).message}`,
    );
  }
  if (doc?.issuer !== issuerURL) return issuerMismatch(issuerURL, doc?.issuer);
  return cause;
}

function issuerMismatch(expected: string, got: unknown): Error {
  return new Error(`oidc: issuer did not match the issuer returned by provider, expected ${goQuote(expected)} got ${goQuote(typeof got === 'string' ? got : '')}`);
}

export async function discoverProvider(issuerURL: string, discoveryURL: string | undefined, http: HttpClient, clientId: string): Promise<DiscoveredProvider> {
  const target = discoveryURL || wellKnownURL(issuerURL);
  let last: HttpResponse | undefined;
  const recording: HttpClient = {
    get: async (url, headers) => {
      last = await http.get(url, headers);
      return last;
    },
  };
  let metadata: { issuer: string; jwks_uri?: string };
  try {
    const config = await discovery(new URL(issuerURL), clientId, undefined, None(), {
      // Every request openid-client makes here is the discovery request: send it where upstream would.
      [customFetch]: fetchVia(recording, () => target),
    });
    metadata = config.serverMetadata();
  } catch (e) {
    throw explain(last, issuerURL, e as Error);
  }
  const raw = last ? (JSON.parse(last.body.toString('utf8')) as { issuer?: unknown }) : { issuer: metadata.issuer };
  if (raw.issuer !== issuerURL) throw issuerMismatch(issuerURL, raw.issuer);
  return { issuer: issuerURL, jwksUri: typeof metadata.jwks_uri === 'string' ? metadata.jwks_uri : '' };
}
