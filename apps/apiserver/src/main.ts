#!/usr/bin/env node
// apiserver [flags]: parse and validate every flag (all errors at once, exit 1 before any port is bound), start
// the server, and terminate gracefully on SIGTERM/SIGINT with exit 0.
import { createEgressSelector } from '@cl/egress';
import { createTracing } from '@cl/tracing';
import type { UserInfo } from '@cl/auth';
import { AuthenticationSetupError, authenticationGroup, authenticationGroupVersions, authenticationRoutes, buildAuthentication, discoveryRoutes, newLoopbackCredential, type DiscoveryGroup } from './authn';
import { buildAuthorization } from './authz';
import { enabledAdmissionPlugins } from './admission';
import { BootstrapTokenAuthenticator } from './authn/bootstrap-token';
import { loadConfigFiles, initializeAdmission } from './config-files';
import { inProcessScheduler } from './in-process';
import { controllerFactories } from './controllers';
import { createLogger } from './logger';
import { metricsRegistry } from './metrics';
import { apiserverFlags, parseCommandLine } from './options';
import { startApiserver, type ServerParts } from './server';
import { groupVersionsOf, kindDiscoveryGroups, mountResources, openApiRoutes, servedKinds, type MountedResources } from './resources';
import { NodeAgentClient, nodeConnectionRoutes } from './node-connection';
import { buildServiceAccounts } from './serviceaccount';
import { versionInfo } from './version';

// authorization.k8s.io/v1 as served by ./authz (review endpoints), for the discovery documents.
const authorizationGroup: DiscoveryGroup = {
  name: 'authorization.k8s.io',
  versions: [
    {
      version: 'v1',
      resources: [
        { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
        { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
        { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
      ],
    },
  ],
};

export async function main(argv: readonly string[]): Promise<number> {
  const cl = parseCommandLine(argv);
  for (const w of cl.warnings) process.stderr.write(`${w}\n`);
  if (cl.help) {
    process.stdout.write(`The cl API server serves the Kubernetes API of a cl control plane.\n\nUsage:\n  apiserver [flags]\n\n${apiserverFlags().usage()}`);
    return 0;
  }
  if (cl.version) {
    process.stdout.write(`Kubernetes ${versionInfo().gitVersion}\n`);
    return 0;
  }
  if (cl.syntaxErrors.length > 0) {
    for (const e of cl.syntaxErrors) process.stderr.write(`Error: ${e}\n`);
    process.stderr.write(`Run 'apiserver --help' for usage.\n`);
    return 1;
  }
  // Every configuration problem is collected before anything starts: option validation (with the authorization
  // file), the files of this module, then the authentication and authorization set-ups, each attempted even
  // when an earlier one failed.
  const optionErrors = cl.errors.length;
  const config = loadConfigFiles(cl.options.values, cl.options.explicit);
  const errors = [...cl.errors, ...config.errors];
  const log = createLogger({ verbosity: cl.options.verbosity });
  let egress = createEgressSelector();
  let tracing = createTracing(undefined, { serviceName: 'apiserver' });
  try {
    // The span exporter dials through its own selector (it cannot trace its own dials); every other outbound
    // connection uses a selector that records `Proxy via ...` spans and the egress dial metrics.
    // OIDC discovery never goes through egress (the spec); webhooks use `controlplane`, the store `store`.
    tracing = createTracing(config.files.tracing, { serviceName: 'apiserver', egress: createEgressSelector(config.files.egress).dialerFor('controlplane') });
    egress = createEgressSelector(config.files.egress, { tracer: tracing.enabled ? tracing.tracer : undefined, registry: metricsRegistry });
  } catch (e) {
    errors.push((e as Error).message);
  }
  // The credential of the server's own clients: made for this run only, never written anywhere.
  const loopback = newLoopbackCredential();
  // Service account tokens: the keys load (or are generated in --cert-dir) before anything binds.
  const serviceAccounts = optionErrors === 0 ? buildServiceAccounts(cl.options.serviceAccounts, cl.options.certDir, () => mounted?.stores, errors, {
    nodeRestriction: enabledAdmissionPlugins(cl.options.enableAdmissionPlugins, cl.options.disableAdmissionPlugins).includes('NodeRestriction'),
  }) : null;
  let authn: ReturnType<typeof buildAuthentication> | undefined;
  // Bootstrap tokens read kube-system Secrets from the store once it is open (attached below).
  const bootstrapTokens = cl.options.values['enable-bootstrap-token-auth'] ? new BootstrapTokenAuthenticator((l) => log.v(3, l)) : undefined;
  try {
    authn = buildAuthentication({
      loopback,
      bootstrapTokens,
      authenticationConfig: (cl.options.values['authentication-config'] as string) || undefined,
      clientCAFile: (cl.options.values['client-ca-file'] as string) || undefined,
      anonymousAuth: cl.options.anonymousAuth,
      serviceAccounts: serviceAccounts?.authenticator,
      log,
    });
  } catch (e) {
    errors.push(...(e instanceof AuthenticationSetupError ? e.errors : [(e as Error).message]));
  }
  let authz: ReturnType<typeof buildAuthorization> | undefined;
  // Invalid authorization options were reported by validation already; building would report them again.
  if (optionErrors === 0) {
    try {
      authz = buildAuthorization(cl.options.authorization, { egress, log });
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  // Node agents are reached through the `cluster` selection (logs, exec, port-forward, node proxy).
  let nodeAgents: NodeAgentClient | undefined;
  if (optionErrors === 0) {
    try {
      const o = cl.options.nodeAgent;
      nodeAgents = new NodeAgentClient({
        dialer: egress.dialerFor('cluster'),
        clientCertFile: o.clientCertFile || undefined,
        clientKeyFile: o.clientKeyFile || undefined,
        caFile: o.caFile || undefined,
        timeoutMs: o.timeoutMs,
      });
    } catch (e) {
      errors.push(`kubelet client: ${(e as Error).message}`);
    }
  }
  if (errors.length > 0 || !authn || !authz || !nodeAgents) {
    nodeAgents?.close();
    authn?.close();
    await authz?.close();
    await tracing.shutdown();
    for (const e of errors) process.stderr.write(`Error: ${e}\n`);
    return 1;
  }
  const authentication = authn;
  const agents = nodeAgents;
  let mounted: MountedResources | undefined;
  // The RBAC index is fed from the resource stores once they exist; the rbac/bootstrap-roles hook waits for it.
  let rbacSynced: Promise<void> = Promise.resolve();
  const kinds = servedKinds();
  const discovery = kindDiscoveryGroups(kinds);
  const serviceAccountRoutes = serviceAccounts
    ? await serviceAccounts.routes(async (a) => (await authz.chain.authorize({ ...a, isResourceRequest: true, path: '', apiVersion: '*', subresource: '' })).decision === 'Allow')
    : [];
  const parts: ServerParts = {
    authenticator: authentication.authenticator,
    authorizer: authz.authorizer,
    clientCA: authentication.clientCA,
    routes: [
      ...authenticationRoutes(authentication, (l) => log.v(2, l)),
      ...authz.routes,
      ...discoveryRoutes(discovery.core, () => [...discovery.groups, authenticationGroup, authorizationGroup]),
      ...openApiRoutes(kinds),
      ...serviceAccountRoutes,
      ...nodeConnectionRoutes({ stores: () => mounted?.stores, client: agents, preferredAddressTypes: cl.options.nodeAgent.preferredAddressTypes, log: (l) => log.info(l) }),
    ],
    groupVersions: [...groupVersionsOf(kinds), ...authenticationGroupVersions, ...authz.groupVersions],
    resources: (store) => {
      mounted = mountResources(store, {
        eventTtlSeconds: Math.round(cl.options.eventTtlMs / 1000),
        minRequestTimeoutSeconds: cl.options.minRequestTimeoutSeconds,
        enableAdmissionPlugins: cl.options.enableAdmissionPlugins,
        disableAdmissionPlugins: cl.options.disableAdmissionPlugins,
        log: (l) => log.info(l),
        storeAdmission: (s, chain) => authz.storeAdmission(s, chain),
        authorize: async (a) => (await authz.chain.authorize({ ...a, user: a.user as UserInfo, isResourceRequest: true, path: '', namespace: '', apiVersion: '*', subresource: '' })).decision === 'Allow',
      });
      const secrets = mounted.stores.find((s) => s.def.group === '' && s.def.plural === 'secrets');
      bootstrapTokens?.attach(async (name) => (secrets ? secrets.get('kube-system', name).catch(() => null) : null));
      rbacSynced = authz.attachStores(mounted.stores);
      return mounted;
    },
    loopbackToken: loopback.token,
    controllers: [...(cl.options.enableScheduler ? [inProcessScheduler] : []), ...controllerFactories(cl.options.controllers)],
    onClose: async () => {
      agents.close();
      authentication.close();
      await authz.close();
    },
    egress,
    tracing,
    extraSteps: {
      'start-cl-apiserver-admission-initializer': async () => initializeAdmission(config.files.admission, (l) => log.info(l)),
      'rbac/bootstrap-roles': () => rbacSynced,
    },
  };
  let server;
  try {
    server = await startApiserver(cl.options, parts, log);
    authentication.start();
  } catch (e) {
    authentication.close();
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    return 1;
  }
  const running = server;
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      log.info(`Received ${signal}, shutting down`);
      void running.shutdown().then(() => resolve(typeof process.exitCode === 'number' ? process.exitCode : 0));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`Error: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
