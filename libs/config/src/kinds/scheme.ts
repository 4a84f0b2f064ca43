// Which (apiVersion, kind) pairs each loader accepts, as registered in Kubernetes 1.33, and the
// decode-time conversion of each kind to its internal form (defaults, `master` -> `controlplane`).
import type { KindRegistration, Scheme } from '../decode/document';
import type { AdmissionConfiguration } from '../types/admission';
import type { AuthorizationConfiguration, WebhookConfiguration } from '../types/authorization';
import type { EgressSelectorConfiguration } from '../types/egress';
import { APISERVER_CONFIG_GROUP as CONFIG, APISERVER_LEGACY_GROUP as LEGACY } from '../types/meta';
import { admissionSchema, authenticationSchema, authorizationSchema, egressSchema, tracingSchema } from './schemas';

export type ConfigKind =
  | 'AuthenticationConfiguration'
  | 'AuthorizationConfiguration'
  | 'EgressSelectorConfiguration'
  | 'TracingConfiguration'
  | 'AdmissionConfiguration';

export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;

function defaultAuthorization(o: Record<string, unknown>): AuthorizationConfiguration {
  const c = o as unknown as AuthorizationConfiguration;
  for (const a of c.authorizers ?? []) {
    const w: WebhookConfiguration | undefined = a.webhook;
    if (!w) continue;
    if (!w.authorizedTTL) w.authorizedTTL = DEFAULT_AUTHORIZED_TTL_MS;
    if (!w.unauthorizedTTL) w.unauthorizedTTL = DEFAULT_UNAUTHORIZED_TTL_MS;
  }
  return c;
}

/**
 * `master` is the deprecated name of `controlplane` (upstream conversion). This project also takes the
 * spec's `store` as the data store selection, upstream's `etcd`.
 */
export const EGRESS_NAME_ALIASES: Readonly<Record<string, string>> = { master: 'controlplane', store: 'etcd' };

function convertEgress(o: Record<string, unknown>): EgressSelectorConfiguration {
  const c = o as unknown as EgressSelectorConfiguration;
  for (const s of c.egressSelections ?? []) {
    const alias = EGRESS_NAME_ALIASES[s.name];
    if (alias) s.name = alias;
  }
  return c;
}

function convertAuthentication(o: Record<string, unknown>): unknown {
  // v1alpha1/v1beta1 `*string discoveryURL` is a plain string internally
  for (const j of (o['jwt'] as Array<{ issuer: { discoveryURL?: string } }>) ?? []) j.issuer.discoveryURL ??= '';
  return o;
}

const identity = (o: Record<string, unknown>) => o;

const reg = (
  group: string,
  version: string,
  kind: ConfigKind,
  schema: KindRegistration['schema'],
  toInternal: KindRegistration['toInternal'],
): KindRegistration => ({ apiVersion: `${group}/${version}`, kind, schema, toInternal });

const authn = (v: string) => reg(CONFIG, v, 'AuthenticationConfiguration', authenticationSchema(v), convertAuthentication);
const authz = (v: string) => reg(CONFIG, v, 'AuthorizationConfiguration', authorizationSchema(v), defaultAuthorization);
const tracing = (v: string) => reg(CONFIG, v, 'TracingConfiguration', tracingSchema(v), identity);
const egress = (v: string) => reg(LEGACY, v, 'EgressSelectorConfiguration', egressSchema(v), convertEgress);
const admission = (g: string, v: string) =>
  reg(g, v, 'AdmissionConfiguration', admissionSchema(v), (o) => o as unknown as AdmissionConfiguration);

/** k8s.io/apiserver/pkg/apis/apiserver/install: internal + v1alpha1 + v1beta1 + v1. */
export const apiserverScheme: Scheme = {
  name: 'k8s.io/apiserver/pkg/apis/apiserver/install/install.go',
  kinds: [
    admission(LEGACY, 'v1alpha1'),
    egress('v1alpha1'),
    egress('v1beta1'),
    authn('v1alpha1'),
    authn('v1beta1'),
    authz('v1alpha1'),
    authz('v1beta1'),
    authz('v1'),
    tracing('v1alpha1'),
    tracing('v1beta1'),
    admission(CONFIG, 'v1'),
  ],
};

/** pkg/server/options/admission.go builds its own scheme: internal + v1alpha1 + v1 (no v1beta1). */
export const admissionScheme: Scheme = {
  name: 'k8s.io/apiserver/pkg/server/options/admission.go',
  kinds: apiserverScheme.kinds.filter((k) => !k.apiVersion.endsWith('/v1beta1')),
};
