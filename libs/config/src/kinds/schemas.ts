// Field schemas of the versioned kinds (as in k8s.io/apiserver/pkg/apis/apiserver/{v1alpha1,v1beta1,v1}),
// used by strict decoding. Go package names appear in type error messages, hence the `pkg` argument.
import { t, type FieldType } from '../decode/schema';

type Struct = FieldType & { k: 'struct' };
const meta = { apiVersion: t.ptr(t.string), kind: t.ptr(t.string) };

export function authenticationSchema(pkg: string): Struct {
  const s = (name: string, f: Parameters<typeof t.struct>[2]) => t.struct(name, pkg, f);
  const prefixed = s('PrefixedClaimOrExpression', { claim: t.string, prefix: t.ptr(t.string), expression: t.string });
  return s('AuthenticationConfiguration', {
    ...meta,
    jwt: t.slice(
      s('JWTAuthenticator', {
        issuer: s('Issuer', {
          url: t.string,
          discoveryURL: t.ptr(t.string),
          certificateAuthority: t.string,
          audiences: t.slice(t.string),
          audienceMatchPolicy: t.string,
        }),
        claimValidationRules: t.slice(
          s('ClaimValidationRule', { claim: t.string, requiredValue: t.string, expression: t.string, message: t.string }),
        ),
        claimMappings: s('ClaimMappings', {
          username: prefixed,
          groups: prefixed,
          uid: s('ClaimOrExpression', { claim: t.string, expression: t.string }),
          extra: t.slice(s('ExtraMapping', { key: t.string, valueExpression: t.string })),
        }),
        userValidationRules: t.slice(s('UserValidationRule', { expression: t.string, message: t.string })),
      }),
    ),
    anonymous: t.ptr(
      s('AnonymousAuthConfig', {
        enabled: t.bool,
        conditions: t.slice(s('AnonymousAuthCondition', { path: t.string })),
      }),
    ),
  }) as Struct;
}

export function authorizationSchema(pkg: string): Struct {
  const s = (name: string, f: Parameters<typeof t.struct>[2]) => t.struct(name, pkg, f);
  return s('AuthorizationConfiguration', {
    ...meta,
    authorizers: t.slice(
      s('AuthorizerConfiguration', {
        type: t.string,
        name: t.string,
        webhook: t.ptr(
          s('WebhookConfiguration', {
            authorizedTTL: t.duration,
            unauthorizedTTL: t.duration,
            timeout: t.duration,
            subjectAccessReviewVersion: t.string,
            matchConditionSubjectAccessReviewVersion: t.string,
            failurePolicy: t.string,
            connectionInfo: s('WebhookConnectionInfo', { type: t.string, kubeConfigFile: t.ptr(t.string) }),
            matchConditions: t.slice(s('WebhookMatchCondition', { expression: t.string })),
          }),
        ),
      }),
    ),
  }) as Struct;
}

export function egressSchema(pkg: string): Struct {
  const s = (name: string, f: Parameters<typeof t.struct>[2]) => t.struct(name, pkg, f);
  return s('EgressSelectorConfiguration', {
    ...meta,
    egressSelections: t.slice(
      s('EgressSelection', {
        name: t.string,
        connection: s('Connection', {
          proxyProtocol: t.string,
          transport: t.ptr(
            s('Transport', {
              tcp: t.ptr(
                s('TCPTransport', {
                  url: t.string,
                  tlsConfig: t.ptr(s('TLSConfig', { caBundle: t.string, clientKey: t.string, clientCert: t.string })),
                }),
              ),
              uds: t.ptr(s('UDSTransport', { udsName: t.string })),
            }),
          ),
        }),
      }),
    ),
  }) as Struct;
}

export function tracingSchema(pkg: string): Struct {
  return t.struct('TracingConfiguration', pkg, {
    ...meta,
    endpoint: t.ptr(t.string),
    samplingRatePerMillion: t.ptr(t.int32),
  }) as Struct;
}

export function admissionSchema(pkg: string): Struct {
  return t.struct('AdmissionConfiguration', pkg, {
    ...meta,
    plugins: t.slice(t.struct('AdmissionPluginConfiguration', pkg, { name: t.string, path: t.string, configuration: t.raw })),
  }) as Struct;
}
