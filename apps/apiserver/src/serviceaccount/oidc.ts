// Service account issuer discovery (upstream's pkg/serviceaccount/openidmetadata.go): the OpenID provider
// configuration and the public keys, so relying parties (another process's JWT authenticator) can verify this
// cluster's tokens. Served only when the issuer is an https URL, as upstream. Authorization is the server's
// (the bootstrap role system:service-account-issuer-discovery grants get on both paths).
import { exportJWK } from 'jose';
import { exactRoute, type Route } from '../routes';
import type { TokenIssuer } from './issuer';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

function httpsUrl(s: string): URL | null {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

export async function openIdRoutes(issuer: TokenIssuer): Promise<Route[]> {
  if (!httpsUrl(issuer.issuer)) return [];
  // The public keys once: they do not change while the server runs.
  const keys = await Promise.all(
    issuer.keys.verification.map(async (k) => ({ ...(await exportJWK(k.key)), use: 'sig', kid: k.kid, alg: k.alg })),
  );
  const jwks = JSON.stringify({ keys });
  const algs = [...new Set(issuer.keys.verification.map((k) => k.alg))].sort();
  const send = (res: import('node:http').ServerResponse, contentType: string, body: string) => {
    res.statusCode = 200;
    res.setHeader('Content-Type', contentType);
    // Upstream lets relying parties cache both documents for an hour.
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
  return [
    exactRoute(OPENID_CONFIGURATION_PATH, ({ req, res }) => {
      // Without --service-account-jwks-uri upstream names its external address; this server names the address
      // the client reached it at.
      const jwksUri = issuer.jwksUri || `https://${req.headers.host ?? 'localhost'}${JWKS_PATH}`;
      send(res, 'application/json', JSON.stringify({
        issuer: issuer.issuer,
        jwks_uri: jwksUri,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: algs,
      }));
    }, ['GET', 'HEAD']),
    exactRoute(JWKS_PATH, ({ res }) => send(res, 'application/jwk-set+json', jwks), ['GET', 'HEAD']),
  ];
}
