// The three CEL environments of the API server configuration documents. Each declares exactly one
// variable, as upstream does, so `user` inside a claims expression is an undeclared reference.
import { Environment } from '@marcbachmann/cel-js';
import { registerKubernetesExtensions } from './extensions';

export type CelEnvironmentName = 'claims' | 'user' | 'request';

function base(): Environment {
  // Upstream base env: optional types on, homogeneous aggregate literals, cross-type numeric comparisons.
  return registerKubernetesExtensions(
    new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true }),
  );
}

function claimsEnv(): Environment {
  return base().registerVariable('claims', 'map<string, dyn>');
}

function userEnv(): Environment {
  return base()
    .registerType('kubernetes.UserInfo', {
      fields: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' },
    })
    .registerVariable('user', 'kubernetes.UserInfo');
}

function requestEnv(): Environment {
  const selector = { rawSelector: 'string', requirements: 'list<dyn>' };
  return base()
    .registerType('kubernetes.FieldSelectorAttributes', { fields: selector })
    .registerType('kubernetes.LabelSelectorAttributes', { fields: selector })
    .registerType('kubernetes.ResourceAttributes', {
      fields: {
        namespace: 'string',
        verb: 'string',
        group: 'string',
        version: 'string',
        resource: 'string',
        subresource: 'string',
        name: 'string',
        fieldSelector: 'kubernetes.FieldSelectorAttributes',
        labelSelector: 'kubernetes.LabelSelectorAttributes',
      },
    })
    .registerType('kubernetes.NonResourceAttributes', { fields: { path: 'string', verb: 'string' } })
    .registerType('kubernetes.SubjectAccessReviewSpec', {
      fields: {
        resourceAttributes: 'kubernetes.ResourceAttributes',
        nonResourceAttributes: 'kubernetes.NonResourceAttributes',
        user: 'string',
        groups: 'list<string>',
        extra: 'map<string, list<string>>',
        uid: 'string',
      },
    })
    .registerVariable('request', 'kubernetes.SubjectAccessReviewSpec');
}

const cache = new Map<CelEnvironmentName, Environment>();

/** The shared, lazily built environment for one variable. */
export function celEnvironment(name: CelEnvironmentName): Environment {
  let env = cache.get(name);
  if (!env) {
    env = name === 'claims' ? claimsEnv() : name === 'user' ? userEnv() : requestEnv();
    cache.set(name, env);
  }
  return env;
}
