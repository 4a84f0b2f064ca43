// The service-account flags (kube-apiserver's names and meanings) and their validation with upstream's messages.
// With none of them given the server issues tokens anyway: it signs with a key it generates once and keeps in
// --cert-dir next to its self-signed serving certificate (./keys), under the in-cluster issuer name.
import { types, type FlagSet } from '@cl/flags';

const SECTION = 'Authentication flags';

/** The issuer used when no --service-account-issuer is given (what kubeadm configures). */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface ServiceAccountOptions {
  /** --service-account-issuer: the first signs, all are accepted. Empty means the default issuer. */
  issuers: string[];
  /** --service-account-signing-key-file; '' means the generated key in the cert dir. */
  signingKeyFile: string;
  /** --service-account-key-file: verification keys; empty means the signing key alone. */
  keyFiles: string[];
  /** --api-audiences; empty means the issuers. */
  apiAudiences: string[];
  /** --service-account-max-token-expiration in ms; 0 is no limit. */
  maxExpirationMs: number;
  extendExpiration: boolean;
  lookup: boolean;
  jwksUri: string;
}

export function addServiceAccountFlags(fs: FlagSet): FlagSet {
  return fs
    .add({ name: 'service-account-issuer', type: types.stringArray, default: [], section: SECTION, usage: `Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted. Defaults to ${DEFAULT_ISSUER}.` })
    .add({ name: 'service-account-signing-key-file', type: types.string, default: '', section: SECTION, usage: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. When empty, an RSA key is generated once and kept in --cert-dir (service-account.key).' })
    .add({ name: 'service-account-key-file', type: types.stringArray, default: [], section: SECTION, usage: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, the signing key is used.' })
    .add({ name: 'api-audiences', type: types.stringSlice, default: [], section: SECTION, usage: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.' })
    .add({ name: 'service-account-max-token-expiration', type: types.duration, default: 0, section: SECTION, usage: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.' })
    .add({ name: 'service-account-extend-token-expiration', type: types.bool, default: true, section: SECTION, usage: 'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.' })
    .add({ name: 'service-account-lookup', type: types.bool, default: true, section: SECTION, usage: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.' })
    .add({ name: 'service-account-jwks-uri', type: types.string, default: '', section: SECTION, usage: 'Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. This flag is useful if the discovery docand key set are served to relying parties from a URL other than the API server\'s external (as auto-detected or overridden with external-hostname).' });
}

export function serviceAccountOptions(v: Record<string, unknown>): ServiceAccountOptions {
  return {
    issuers: v['service-account-issuer'] as string[],
    signingKeyFile: v['service-account-signing-key-file'] as string,
    keyFiles: v['service-account-key-file'] as string[],
    apiAudiences: v['api-audiences'] as string[],
    maxExpirationMs: v['service-account-max-token-expiration'] as number,
    extendExpiration: v['service-account-extend-token-expiration'] as boolean,
    lookup: v['service-account-lookup'] as boolean,
    jwksUri: v['service-account-jwks-uri'] as string,
  };
}

/** The issuers in effect: the flag's, or the default one. */
export const effectiveIssuers = (o: ServiceAccountOptions) => (o.issuers.length ? o.issuers : [DEFAULT_ISSUER]);
/** The audiences the authenticator accepts: --api-audiences, else the issuers (upstream's defaulting). */
export const effectiveAudiences = (o: ServiceAccountOptions) => (o.apiAudiences.length ? o.apiAudiences : effectiveIssuers(o));

const MAX_EXPIRATION_LOW_MS = 3600_000;
const MAX_EXPIRATION_HIGH_MS = 2 ** 32 * 1000;

/** Upstream's checks (authentication options, then the issuer's CompletedOptions), every message at once. */
export function validateServiceAccountOptions(o: ServiceAccountOptions): string[] {
  const errs: string[] = [];
  // Upstream requires both; the embedded default (neither given) is this server's addition, one alone is an error.
  if ((o.issuers.length === 0) !== (o.signingKeyFile === '')) errs.push('service-account-signing-key-file and service-account-issuer are required flags');
  const seen = new Set<string>();
  for (const iss of o.issuers) {
    if (iss === '') {
      errs.push('service-account-issuer should not be an empty string');
      continue;
    }
    if (seen.has(iss)) errs.push(`service-account-issuer ${JSON.stringify(iss)} is already specified`);
    seen.add(iss);
    if (iss.includes(':')) {
      try {
        new URL(iss);
      } catch (e) {
        errs.push(`service-account-issuer ${JSON.stringify(iss)} contained a ':' but was not a valid URL: ${(e as Error).message}`);
      }
    }
  }
  if (o.jwksUri !== '') {
    let ok = false;
    try {
      ok = new URL(o.jwksUri).protocol === 'https:';
    } catch {
      ok = false;
    }
    if (!ok) errs.push('service-account-jwks-uri requires https scheme, parsed as: ' + o.jwksUri);
  }
  if (o.maxExpirationMs !== 0 && (o.maxExpirationMs < MAX_EXPIRATION_LOW_MS || o.maxExpirationMs > MAX_EXPIRATION_HIGH_MS)) {
    errs.push(`the service-account-max-token-expiration must be between 1 hour and 2^32 seconds`);
  }
  return errs;
}
