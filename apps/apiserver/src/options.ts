// The API server's command line: kube-apiserver's flag names and defaults where cl has the feature, with the
// data store flags under the spec's `store` name (`--store-servers` for upstream's `--etcd-servers`).
import { FlagSet, types, ipType, levelType, formatDuration } from '@cl/flags';
import { IDLE_CONNECTION_TIMEOUT_MS, READ_HEADER_TIMEOUT_MS } from './request-timeout';
import { validateAdmissionFlags } from './admission';
import { KNOWN_CONTROLLERS, validateControllerOptions, type ControllerOptions } from './controllers';
import { addAuthenticationFlags } from './authn/flags';
import { addAuthorizationFlags, authorizationOptions, validateAuthorizationOptions, type AuthorizationOptions } from './authz/flags';
import { addNodeAgentFlags, nodeAgentOptions, validateNodeAgentOptions, type NodeAgentOptions } from './node-connection';
import { addServiceAccountFlags, serviceAccountOptions, validateServiceAccountOptions, type ServiceAccountOptions } from './serviceaccount/flags';

export interface ApiserverOptions {
  bindAddress: string;
  securePort: number;
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  livezGracePeriodMs: number;
  shutdownDelayMs: number;
  shutdownSendRetryAfter: boolean;
  /** --max-requests-inflight, --max-mutating-requests-inflight, --enable-priority-and-fairness (./max-in-flight). */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  enablePriorityAndFairness: boolean;
  /** --request-timeout: the deadline of requests that are not long-running (./request-timeout). */
  requestTimeoutMs: number;
  /** --min-request-timeout: watches without timeoutSeconds end after a random time between this and twice this (0: never). */
  minRequestTimeoutSeconds: number;
  /** Go's ReadHeaderTimeout and IdleTimeout of kube-apiserver's server (hidden flags, so tests need not wait 32 s). */
  readHeaderTimeoutMs: number;
  idleConnectionTimeoutMs: number;
  /** --http2-max-streams-per-connection: accepted as 0 only, this server speaks HTTP/1.1. */
  http2MaxStreamsPerConnection: number;
  dataDir: string;
  storeServers: string[];
  storePrefix: string;
  storeCaFile: string;
  storeCertFile: string;
  storeKeyFile: string;
  storeHealthcheckTimeoutMs: number;
  storeCompactionIntervalMs: number;
  anonymousAuth: boolean;
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  /** --event-ttl: how long events are kept. */
  eventTtlMs: number;
  /** --enable-scheduler: run @cl/scheduler in this process. */
  enableScheduler: boolean;
  /** The in-process controllers (@cl/controllers) and their settings, kube-controller-manager's flags. */
  controllers: ControllerOptions;
  verbosity: number;
  authorization: AuthorizationOptions;
  /** The client of node agents (logs, exec, port-forward, node proxy): the --kubelet-* flags. */
  nodeAgent: NodeAgentOptions;
  /** The service account token issuer and authenticator: the --service-account-* flags and --api-audiences. */
  serviceAccounts: ServiceAccountOptions;
  /** Every flag value by name, for the modules that read their own flags (authentication, authorization). */
  values: Record<string, unknown>;
  /** Flags given on the command line (normalised names), for the flag-versus-file rules. */
  explicit: Set<string>;
}

export function apiserverFlags(): FlagSet {
  const fs = new FlagSet('apiserver');
  const secure = 'Secure serving flags';
  const generic = 'Generic flags';
  const store = 'Store flags';
  fs.add({ name: 'bind-address', type: ipType, default: '0.0.0.0', section: secure, usage: 'The IP address on which to listen for the --secure-port port. If blank or an unspecified address (0.0.0.0 or ::), all interfaces and IP address families will be used.' })
    .add({ name: 'cert-dir', type: types.string, default: '/var/run/cl', section: secure, usage: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.' })
    .add({ name: 'secure-port', type: types.int, default: 6443, section: secure, usage: 'The port on which to serve HTTPS with authentication and authorization. It cannot be switched off with 0.' })
    .add({ name: 'tls-cert-file', type: types.string, default: '', section: secure, usage: 'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by --cert-dir.' })
    .add({ name: 'tls-private-key-file', type: types.string, default: '', section: secure, usage: 'File containing the default x509 private key matching --tls-cert-file.' })
    .add({ name: 'http2-max-streams-per-connection', type: types.int, default: 0, section: secure, usage: 'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. This server speaks HTTP/1.1 only (one request at a time on a connection), so only 0 is accepted.' })
    .add({ name: 'read-header-timeout', type: types.duration, default: READ_HEADER_TIMEOUT_MS, section: secure, hidden: true, usage: 'How long a connection may take to finish its TLS handshake, and then to send the headers of a request (Go\'s ReadHeaderTimeout in kube-apiserver: 32s).' })
    .add({ name: 'idle-connection-timeout', type: types.duration, default: IDLE_CONNECTION_TIMEOUT_MS, section: secure, hidden: true, usage: 'How long a kept-alive connection may stay open without a request (Go\'s IdleTimeout in kube-apiserver: 90s).' })
    .add({ name: 'livez-grace-period', type: types.duration, default: 0, section: generic, usage: "This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver's start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true." })
    .add({ name: 'shutdown-delay-duration', type: types.duration, default: 0, section: generic, usage: 'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.' })
    .add({ name: 'max-requests-inflight', type: types.int32, default: 400, section: generic, usage: 'This and --max-mutating-requests-inflight are summed to determine the server\'s total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.' })
    .add({ name: 'max-mutating-requests-inflight', type: types.int32, default: 200, section: generic, usage: 'This and --max-requests-inflight are summed to determine the server\'s total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.' })
    .add({ name: 'enable-priority-and-fairness', type: types.bool, default: true, section: generic, usage: 'If true, replace the max-in-flight handler with one pool of both limits (system:masters and the health checks exempt, as upstream\'s exempt and probes flow schemas); this server has no flow schemas or queues: a full pool answers 429 at once.' })
    .add({ name: 'request-timeout', type: types.duration, default: 60_000, section: generic, usage: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.' })
    .add({ name: 'min-request-timeout', type: types.int, default: 1800, section: generic, usage: 'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.' })
    .add({ name: 'shutdown-send-retry-after', type: types.bool, default: false, section: generic, usage: 'If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a \'Retry-After\' response header, in addition \'Connection: close\' response header is set in order to tear down the TCP connection when idle.' })
    .add({ name: 'data-dir', type: types.string, default: '/var/lib/cl', section: store, usage: 'Directory of the embedded store (a SQLite file), used when --store-servers is empty.' })
    .add({ name: 'store-servers', type: types.stringSlice, default: [], section: store, usage: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Empty means the embedded store under --data-dir.' })
    .add({ name: 'store-prefix', type: types.string, default: '/registry', section: store, usage: 'The prefix to prepend to all resource paths in etcd.' })
    .add({ name: 'store-cafile', type: types.string, default: '', section: store, usage: 'SSL Certificate Authority file used to secure etcd communication.' })
    .add({ name: 'store-certfile', type: types.string, default: '', section: store, usage: 'SSL certification file used to secure etcd communication.' })
    .add({ name: 'store-keyfile', type: types.string, default: '', section: store, usage: 'SSL key file used to secure etcd communication.' })
    .add({ name: 'store-compaction-interval', type: types.duration, default: 5 * 60_000, section: store, usage: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.' })
    .add({ name: 'store-healthcheck-timeout', type: types.duration, default: 2000, section: store, usage: 'The timeout to use when checking etcd health.' })
    .add({ name: 'egress-selector-config-file', type: types.string, default: '', section: 'Egress selector flags', usage: 'File with apiserver egress selector configuration.' })
    .add({ name: 'tracing-config-file', type: types.string, default: '', section: 'Tracing flags', usage: 'File with apiserver tracing configuration.' })
    .add({ name: 'admission-control-config-file', type: types.string, default: '', section: 'Admission flags', usage: 'File with admission control configuration.' })
    .add({ name: 'enable-admission-plugins', type: types.stringSlice, default: [], section: 'Admission flags', usage: 'admission plugins that should be enabled in addition to default enabled ones (NamespaceLifecycle, ServiceAccount, TaintNodesByCondition, Priority, DefaultTolerationSeconds). Comma-delimited list of admission plugins: DefaultTolerationSeconds, NamespaceLifecycle, Priority, ServiceAccount, TaintNodesByCondition. The order of plugins in this flag does not matter.' })
    .add({ name: 'disable-admission-plugins', type: types.stringSlice, default: [], section: 'Admission flags', usage: 'admission plugins that should be disabled although they are in the default enabled plugins list (NamespaceLifecycle, ServiceAccount, TaintNodesByCondition, Priority, DefaultTolerationSeconds). The order of plugins in this flag does not matter.' })
    .add({ name: 'enable-scheduler', type: types.bool, default: true, section: 'Scheduler flags', usage: 'Run the scheduler (@cl/scheduler) in this process; turn it off to run a scheduler elsewhere.' })
    .add({ name: 'controllers', type: types.stringSlice, default: ['*'], section: 'Controller flags', usage: `A list of controllers to run in this process. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.\nAll controllers: ${KNOWN_CONTROLLERS.join(', ')}` })
    .add({ name: 'node-monitor-period', type: types.duration, default: 5000, section: 'Controller flags', usage: 'The period for syncing NodeStatus in cloud-node-lifecycle-controller.' })
    .add({ name: 'node-monitor-grace-period', type: types.duration, default: 50_000, section: 'Controller flags', usage: 'Amount of time which we allow running Node to be unresponsive before marking it unhealthy. Must be N times more than kubelet\'s nodeStatusUpdateFrequency, where N means number of retries allowed for kubelet to post node status.' })
    .add({ name: 'node-startup-grace-period', type: types.duration, default: 60_000, section: 'Controller flags', usage: 'Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.' })
    .add({ name: 'node-eviction-rate', type: types.float64, default: 0.1, section: 'Controller flags', usage: 'Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy (see --unhealthy-zone-threshold for definition of healthy/unhealthy). Zone refers to entire cluster in non-multizone clusters.' })
    .add({ name: 'terminated-pod-gc-threshold', type: types.int32, default: 12500, section: 'Controller flags', usage: 'Number of terminated pods that can exist before the terminated pod garbage collector starts deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled.' })
    .add({ name: 'resource-quota-sync-period', type: types.duration, default: 30_000, section: 'Controller flags', usage: 'The period for syncing quota usage status in the system. (kube-controller-manager defaults to 5m0s; 30s here, so that a create admission charged but the store refused stops counting soon.)' })
    .add({ name: 'concurrent-namespace-syncs', type: types.int32, default: 10, section: 'Controller flags', usage: 'The number of namespace objects that are allowed to sync concurrently. Larger number = more responsive namespace termination, but more CPU (and network) load' })
    .add({ name: 'concurrent-gc-syncs', type: types.int32, default: 20, section: 'Controller flags', usage: 'The number of garbage collector workers that are allowed to sync concurrently.' })
    .add({ name: 'root-ca-file', type: types.string, default: '', section: 'Controller flags', usage: "If set, this root certificate authority will be included in service account's token secret. This must be a valid PEM-encoded CA bundle. Published in every namespace's kube-root-ca.crt ConfigMap; by default the CA of the serving certificate." })
    .add({ name: 'cluster-signing-cert-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates.  If specified, no more specific --cluster-signing-* flag may be specified.' })
    .add({ name: 'cluster-signing-key-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates.  If specified, no more specific --cluster-signing-* flag may be specified.' })
    .add({ name: 'cluster-signing-kubelet-serving-cert-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded X509 CA certificate used to issue certificates for the kubernetes.io/kubelet-serving signer.  If specified, --cluster-signing-{cert,key}-file must not be set.' })
    .add({ name: 'cluster-signing-kubelet-serving-key-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign certificates for the kubernetes.io/kubelet-serving signer.  If specified, --cluster-signing-{cert,key}-file must not be set.' })
    .add({ name: 'cluster-signing-kubelet-client-cert-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded X509 CA certificate used to issue certificates for the kubernetes.io/kube-apiserver-client-kubelet signer.  If specified, --cluster-signing-{cert,key}-file must not be set.' })
    .add({ name: 'cluster-signing-kubelet-client-key-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign certificates for the kubernetes.io/kube-apiserver-client-kubelet signer.  If specified, --cluster-signing-{cert,key}-file must not be set.' })
    .add({ name: 'cluster-signing-kube-apiserver-client-cert-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded X509 CA certificate used to issue certificates for the kubernetes.io/kube-apiserver-client signer.  If specified, --cluster-signing-{cert,key}-file must not be set.' })
    .add({ name: 'cluster-signing-kube-apiserver-client-key-file', type: types.string, default: '', section: 'Controller flags', usage: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign certificates for the kubernetes.io/kube-apiserver-client signer.  If specified, --cluster-signing-{cert,key}-file must not be set.' })
    .add({ name: 'cluster-signing-duration', type: types.duration, default: 8760 * 3_600_000, section: 'Controller flags', usage: 'The max length of duration signed certificates will be given.  Individual CSRs may request shorter certs by setting spec.expirationSeconds.' })
    .add({ name: 'enable-bootstrap-token-auth', type: types.bool, default: false, section: 'Authentication flags', usage: "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication." })
    .add({ name: 'event-ttl', type: types.duration, default: 60 * 60_000, section: generic, usage: 'Amount of time to retain events.' })
    .add({ name: 'anonymous-auth', type: types.bool, default: true, section: 'Authentication flags', usage: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.' })
    .add({ name: 'v', shorthand: 'v', type: levelType, default: 0, section: 'Logs flags', usage: 'number for the log level verbosity' })
    .add({ name: 'help', shorthand: 'h', type: types.bool, default: false, section: generic, usage: 'help for apiserver' })
    .add({ name: 'version', type: types.bool, default: false, section: generic, usage: 'Print version information and quit' });
  addAuthorizationFlags(fs);
  addAuthenticationFlags(fs);
  addNodeAgentFlags(fs);
  addServiceAccountFlags(fs);
  return fs;
}

export interface ParsedCommandLine {
  options: ApiserverOptions;
  help: boolean;
  version: boolean;
  /** Every problem: syntax errors first, then option validation. */
  errors: string[];
  /** Unknown flags, unparsable values, stray arguments: nothing else is checked when there are any. */
  syntaxErrors: string[];
  warnings: string[];
}

export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const fs = apiserverFlags();
  const r = fs.parse(argv);
  const v = r.values;
  const options: ApiserverOptions = {
    bindAddress: v['bind-address'] as string,
    securePort: v['secure-port'] as number,
    certDir: v['cert-dir'] as string,
    tlsCertFile: v['tls-cert-file'] as string,
    tlsPrivateKeyFile: v['tls-private-key-file'] as string,
    livezGracePeriodMs: v['livez-grace-period'] as number,
    shutdownDelayMs: v['shutdown-delay-duration'] as number,
    shutdownSendRetryAfter: v['shutdown-send-retry-after'] as boolean,
    maxRequestsInflight: v['max-requests-inflight'] as number,
    maxMutatingRequestsInflight: v['max-mutating-requests-inflight'] as number,
    enablePriorityAndFairness: v['enable-priority-and-fairness'] as boolean,
    requestTimeoutMs: v['request-timeout'] as number,
    minRequestTimeoutSeconds: v['min-request-timeout'] as number,
    readHeaderTimeoutMs: v['read-header-timeout'] as number,
    idleConnectionTimeoutMs: v['idle-connection-timeout'] as number,
    http2MaxStreamsPerConnection: v['http2-max-streams-per-connection'] as number,
    dataDir: v['data-dir'] as string,
    storeServers: v['store-servers'] as string[],
    storePrefix: v['store-prefix'] as string,
    storeCaFile: v['store-cafile'] as string,
    storeCertFile: v['store-certfile'] as string,
    storeKeyFile: v['store-keyfile'] as string,
    storeHealthcheckTimeoutMs: v['store-healthcheck-timeout'] as number,
    storeCompactionIntervalMs: v['store-compaction-interval'] as number,
    anonymousAuth: v['anonymous-auth'] as boolean,
    enableAdmissionPlugins: v['enable-admission-plugins'] as string[],
    disableAdmissionPlugins: v['disable-admission-plugins'] as string[],
    eventTtlMs: v['event-ttl'] as number,
    enableScheduler: v['enable-scheduler'] as boolean,
    controllers: {
      enabled: v['controllers'] as string[],
      nodeMonitorPeriodMs: v['node-monitor-period'] as number,
      nodeMonitorGracePeriodMs: v['node-monitor-grace-period'] as number,
      nodeStartupGracePeriodMs: v['node-startup-grace-period'] as number,
      nodeEvictionRate: v['node-eviction-rate'] as number,
      terminatedPodGCThreshold: v['terminated-pod-gc-threshold'] as number,
      resourceQuotaSyncPeriodMs: v['resource-quota-sync-period'] as number,
      concurrentNamespaceSyncs: v['concurrent-namespace-syncs'] as number,
      concurrentGCSyncs: v['concurrent-gc-syncs'] as number,
      rootCAFile: v['root-ca-file'] as string,
      clusterSigning: {
        certFile: v['cluster-signing-cert-file'] as string,
        keyFile: v['cluster-signing-key-file'] as string,
        perSigner: {
          'kubelet-serving': [v['cluster-signing-kubelet-serving-cert-file'] as string, v['cluster-signing-kubelet-serving-key-file'] as string],
          'kubelet-client': [v['cluster-signing-kubelet-client-cert-file'] as string, v['cluster-signing-kubelet-client-key-file'] as string],
          'kube-apiserver-client': [v['cluster-signing-kube-apiserver-client-cert-file'] as string, v['cluster-signing-kube-apiserver-client-key-file'] as string],
        },
        durationMs: v['cluster-signing-duration'] as number,
      },
    },
    verbosity: v['v'] as number,
    authorization: authorizationOptions(v),
    nodeAgent: nodeAgentOptions(v),
    serviceAccounts: serviceAccountOptions(v),
    values: v,
    explicit: r.explicit,
  };
  const syntaxErrors = [...r.errors];
  if (r.args.length > 0) syntaxErrors.push(`unknown command ${JSON.stringify(r.args[0])} for "apiserver"`);
  const errors = [...syntaxErrors];
  if (syntaxErrors.length === 0) errors.push(...validateOptions(options), ...validateAuthorizationOptions(options.authorization, r.explicit));
  return { options, help: v['help'] as boolean, version: v['version'] as boolean, errors, syntaxErrors, warnings: r.warnings };
}

/** Upstream's option validation, every message at once. */
export function validateOptions(o: ApiserverOptions): string[] {
  const errs: string[] = [];
  if (o.securePort < 1 || o.securePort > 65535) {
    errs.push(`--secure-port ${o.securePort} must be between 1 and 65535, inclusive. It cannot be turned off with 0`);
  }
  if (o.livezGracePeriodMs < 0) errs.push('--livez-grace-period can not be a negative value');
  errs.push(...validateControllerOptions(o.controllers));
  if (o.shutdownDelayMs < 0) errs.push('--shutdown-delay-duration can not be negative value');
  // Upstream's ServerRunOptions.Validate words.
  if (o.maxRequestsInflight < 0) errs.push('--max-requests-inflight can not be negative value');
  if (o.maxMutatingRequestsInflight < 0) errs.push('--max-mutating-requests-inflight can not be negative value');
  if (o.enablePriorityAndFairness && o.maxRequestsInflight + o.maxMutatingRequestsInflight <= 0) {
    errs.push('--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true');
  }
  if (o.requestTimeoutMs < 0) errs.push('--request-timeout can not be negative value');
  // Upstream takes 0 and then times every request out at once; refused here, as no server can work so.
  else if (o.requestTimeoutMs === 0) errs.push('--request-timeout must be greater than 0: with 0 every request would time out as soon as it arrives');
  if (o.minRequestTimeoutSeconds < 0) errs.push('--min-request-timeout can not be negative value');
  if (o.readHeaderTimeoutMs <= 0) errs.push(`--read-header-timeout must be greater than 0, got ${formatDuration(o.readHeaderTimeoutMs)}`);
  if (o.idleConnectionTimeoutMs <= 0) errs.push(`--idle-connection-timeout must be greater than 0, got ${formatDuration(o.idleConnectionTimeoutMs)}`);
  if (o.http2MaxStreamsPerConnection !== 0) {
    errs.push(`--http2-max-streams-per-connection=${o.http2MaxStreamsPerConnection}: this server speaks HTTP/1.1 only, one request at a time on each connection, so there are no HTTP/2 streams to limit; leave it unset or 0`);
  }
  if ((o.tlsCertFile === '') !== (o.tlsPrivateKeyFile === '')) {
    errs.push('--tls-cert-file and --tls-private-key-file must be specified together');
  }
  for (const s of o.storeServers) {
    let u: URL | null = null;
    try {
      u = new URL(s);
    } catch {
      u = null;
    }
    if (!u || !['http:', 'https:'].includes(u.protocol)) errs.push(`--store-servers: invalid URL ${JSON.stringify(s)}: scheme must be http or https`);
  }
  if (o.storeServers.length === 0 && o.dataDir === '') errs.push('--data-dir is required when --store-servers is empty');
  if (o.storeCompactionIntervalMs < 0) errs.push(`--store-compaction-interval must not be negative, got ${formatDuration(o.storeCompactionIntervalMs)}`);
  errs.push(...validateAdmissionFlags(o.enableAdmissionPlugins, o.disableAdmissionPlugins));
  if (o.eventTtlMs < 1000) errs.push(`--event-ttl must be at least 1s, got ${formatDuration(o.eventTtlMs)}`);
  if (o.storeHealthcheckTimeoutMs <= 0) errs.push(`--store-healthcheck-timeout must be greater than 0, got ${formatDuration(o.storeHealthcheckTimeoutMs)}`);
  errs.push(...validateNodeAgentOptions(o.nodeAgent));
  errs.push(...validateServiceAccountOptions(o.serviceAccounts));
  return errs;
}
