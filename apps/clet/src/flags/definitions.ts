// Every command-line flag of the node agent (spec tables), each bound either to a CletConfiguration
// field (the [C] flags: deprecated in favour of --config) or to a command-line-only setting.
import {
  types,
  ipType,
  levelType,
  configurationMap,
  langleSeparatedMap,
  noSplitMap,
  colonSeparatedMultimap,
  featureGateMap,
  type ValueType,
} from '@cl/flags';
import type { CletFlags } from '../config/types';
import { taintsType, reservedMemoryType } from './taints';
import { PREFERRED_CIPHERS, INSECURE_CIPHERS } from '../server/tls-options';
import { checkVersionFlag } from '../version';

export const CONFIG_DEPRECATION =
  "This parameter should be set via the config file specified by the Clet's --config flag. " +
  'See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.';

export const SECTIONS = {
  general: 'General and registration',
  serving: 'Serving, authentication and authorization',
  runtime: 'API client, runtime, images and logging',
  resources: 'Resources, cgroups, policies, eviction, networking',
  gates: 'Feature gates',
} as const;

type Section = keyof typeof SECTIONS;

export interface CletFlagDefinition {
  name: string;
  shorthand?: string;
  type: ValueType<unknown>;
  usage: string;
  section: Section;
  /** Dotted CletConfiguration path for [C] flags; the flag default then comes from the config defaults. */
  config?: string;
  /** CletFlags field for command-line-only flags. */
  flag?: keyof CletFlags;
  /** Default of a command-line-only flag. */
  default?: unknown;
  /** Deprecation message; [C] flags get CONFIG_DEPRECATION. */
  deprecated?: string;
  /** A [C] flag (deprecated in favour of --config) unless false. */
  configOnly?: boolean;
  /** Special flags handled by the command itself (help, version). */
  special?: 'help' | 'version';
}

const vmoduleType: ValueType<Array<{ filePattern: string; verbosity: number }>> = {
  name: 'pattern=N,...',
  parse: (text) =>
    text
      .split(',')
      .filter((p) => p !== '')
      .map((p) => {
        const eq = p.indexOf('=');
        const n = eq < 0 ? NaN : Number(p.slice(eq + 1));
        if (eq < 0 || !Number.isInteger(n) || n < 0) throw new Error(`expect pattern=N, got ${JSON.stringify(p)}`);
        return { filePattern: p.slice(0, eq), verbosity: n };
      }),
  format: (v) => v.map((i) => `${i.filePattern}=${i.verbosity}`).join(','),
  isZero: (v) => v.length === 0,
};

const cipherUsage =
  'Comma-separated list of cipher suites for the server. If omitted, the default Go cipher suites will be used.\n' +
  `Preferred values: ${PREFERRED_CIPHERS.join(', ')}.\nInsecure values: ${INSECURE_CIPHERS.join(', ')}.`;

type Def = Omit<CletFlagDefinition, 'name' | 'section' | 'usage' | 'type'>;
const c = (name: string, type: ValueType<never>, config: string, usage: string, section: Section, more: Def = {}) =>
  ({ name, type, config, usage, section, ...more }) as CletFlagDefinition;
const f = <T>(name: string, type: ValueType<T>, flag: keyof CletFlags, def: T, usage: string, section: Section, more: Def = {}) =>
  ({ name, type, flag, default: def, usage, section, configOnly: false, ...more }) as CletFlagDefinition;

const { string: str, bool, int32, int64, duration, stringSlice } = types;
const s = str as ValueType<never>;
const b = bool as ValueType<never>;
const i32 = int32 as ValueType<never>;
const i64 = int64 as ValueType<never>;
const dur = duration as ValueType<never>;
const slice = stringSlice as ValueType<never>;

export const CLET_FLAGS: CletFlagDefinition[] = [
  // General and registration
  f('config', str, 'config', '', 'The clet will load its initial configuration from this file. The path may be absolute or relative; relative paths start at the clet\'s current working directory. Omit this flag to use the built-in default configuration values. Command-line flags override configuration from this file.', 'general'),
  f('config-dir', str, 'configDir', '', 'Path to a directory to specify drop-ins, allows the user to optionally specify additional configs to overwrite what is provided by default and in the --config flag.', 'general'),
  f('clconfig', str, 'clconfig', '', 'Path to a clconfig file, specifying how to connect to the API server. Providing --clconfig enables API server mode, omitting --clconfig enables standalone mode.', 'general'),
  f('bootstrap-clconfig', str, 'bootstrapClconfig', '', 'Path to a clconfig file that will be used to get client certificate for clet. If the file specified by --clconfig does not exist, the bootstrap clconfig is used to request a client certificate from the API server. On success, a clconfig file referencing the generated client certificate and key is written to the path specified by --clconfig. The client certificate and key file will be stored in the directory pointed by --cert-dir.', 'general'),
  c('register-node', b, 'registerNode', 'Register the node with the apiserver. If --clconfig is not provided, this flag is irrelevant, as the clet won\'t have an apiserver to register with.', 'general'),
  f('register-schedulable', bool, 'registerSchedulable', true, 'Register the node as schedulable. Won\'t have any effect if register-node is false.', 'general', { deprecated: 'will be removed in a future version' }),
  c('register-with-taints', taintsType as ValueType<never>, 'registerWithTaints', 'Register the node with the given list of taints (comma separated "<key>=<value>:<effect>"). No-op if register-node is false.', 'general'),
  f('node-labels', configurationMap, 'nodeLabels', {}, '<Warning: Alpha feature> Labels to add when registering the node in the cluster. Labels must be key=value pairs separated by \',\'. Labels in the \'cl.io\' namespace must begin with an allowed prefix (clet.cl.io, node.cl.io) or be in the specifically allowed set (beta.cl.io/arch, beta.cl.io/instance-type, beta.cl.io/os, failure-domain.beta.cl.io/region, failure-domain.beta.cl.io/zone, cl.io/arch, cl.io/hostname, cl.io/os, node.cl.io/instance-type, topology.cl.io/region, topology.cl.io/zone)', 'general'),
  f('hostname-override', str, 'hostnameOverride', '', 'If non-empty, will use this string as identification instead of the actual hostname. If --cloud-provider is set, the cloud provider determines the name of the node.', 'general'),
  f('node-ip', str, 'nodeIP', '', 'IP address (or comma-separated dual-stack IP addresses) of the node. If unset, clet will use the node\'s default IPv4 address, if any, or its default IPv6 address if it has no IPv4 addresses. You can pass \'::\' to make it prefer the default IPv6 address rather than the default IPv4 address.', 'general'),
  c('provider-id', s, 'providerID', 'Unique identifier for identifying the node in a machine database, i.e cloud provider.', 'general', { configOnly: false }),
  f('cloud-provider', str, 'cloudProvider', '', 'The provider for cloud services. Set to empty string for running with no cloud provider. Set to \'external\' for running with an external cloud provider. If set, the cloud provider determines the name of the node.', 'general'),
  f('cloud-config', str, 'cloudConfig', '', 'The path to the cloud provider configuration file. Empty string for no configuration file.', 'general', { deprecated: 'will be removed in 1.25 or later, in favor of removing cloud provider code from Clet.' }),
  c('node-status-update-frequency', dur, 'nodeStatusUpdateFrequency', 'Specifies how often clet posts node status to master. Note: be cautious when changing the constant, it must work with nodeMonitorGracePeriod in nodecontroller.', 'general'),
  c('node-status-max-images', i32, 'nodeStatusMaxImages', 'The maximum number of images to report in Node.Status.Images. If -1 is specified, no cap will be applied.', 'general'),
  c('max-pods', i32, 'maxPods', 'Number of Pods that can run on this Clet.', 'general'),
  c('pods-per-core', i32, 'podsPerCore', 'Number of Pods per core that can run on this clet. The total number of Pods on this clet cannot exceed max-pods, so max-pods will be used if this calculation results in a larger number of Pods allowed on the clet. A value of 0 disables this limit.', 'general'),
  c('pod-max-pids', i64, 'podPidsLimit', 'Set the maximum number of processes per pod.  If -1, the clet defaults to the node allocatable pid capacity.', 'general'),
  c('pod-cidr', s, 'podCIDR', 'The CIDR to use for pod IP addresses, only used in standalone mode.  In cluster mode, this is obtained from the master. For IPv6, the maximum number of IP\'s allocated is 65536', 'general'),
  c('pod-manifest-path', s, 'staticPodPath', 'Path to the directory containing static pod files to run, or the path to a single static pod file. Files starting with dots will be ignored.', 'general'),
  c('manifest-url', s, 'staticPodURL', 'URL for accessing additional Pod specifications to run', 'general'),
  c('manifest-url-header', colonSeparatedMultimap as ValueType<never>, 'staticPodURLHeader', 'Comma-separated list of HTTP headers to use when accessing the url provided to --manifest-url. Multiple headers with the same name will be added in the same order provided. This flag can be repeatedly invoked. For example: --manifest-url-header \'a:hello,b:again,c:world\' --manifest-url-header \'b:beautiful\'', 'general'),
  c('file-check-frequency', dur, 'fileCheckFrequency', 'Duration between checking config files for new data', 'general'),
  c('http-check-frequency', dur, 'httpCheckFrequency', 'Duration between checking http for new data', 'general'),
  c('sync-frequency', dur, 'syncFrequency', 'Max period between synchronizing running containers and config', 'general'),
  c('runonce', b, 'runOnce', 'If true, exit after spawning pods from static pod files or remote urls. Exclusive with --enable-server', 'general'),
  f('root-dir', str, 'rootDir', '/var/lib/clet', 'Directory path for managing clet files (volume mounts,etc).', 'general'),
  f('lock-file', str, 'lockFile', '', '<Warning: Alpha feature> The path to file for clet to use as a lock file.', 'general'),
  f('exit-on-lock-contention', bool, 'exitOnLockContention', false, 'Whether clet should exit upon lock-file contention.', 'general'),
  c('fail-swap-on', b, 'failSwapOn', 'Makes the clet fail to start if swap is enabled on the node. ', 'general'),
  c('fail-cgroupv1', b, 'failCgroupV1', 'Prevent the clet from starting on the host using cgroup v1.', 'general', { configOnly: false }),

  // Serving, authentication and authorization
  c('address', ipType as ValueType<never>, 'address', 'The IP address for the clet to serve on (set to \'0.0.0.0\' or \'::\' for listening on all interfaces and IP address families)', 'serving'),
  c('port', i32, 'port', 'The port for the clet to serve on.', 'serving'),
  c('read-only-port', i32, 'readOnlyPort', 'The read-only port for the clet to serve on with no authentication/authorization (set to 0 to disable)', 'serving'),
  c('healthz-bind-address', ipType as ValueType<never>, 'healthzBindAddress', 'The IP address for the healthz server to serve on (set to \'0.0.0.0\' or \'::\' for listening on all interfaces and IP families)', 'serving'),
  c('healthz-port', i32, 'healthzPort', 'The port of the localhost healthz endpoint (set to 0 to disable)', 'serving'),
  c('enable-server', b, 'enableServer', 'Enable the clet\'s server', 'serving'),
  c('enable-debugging-handlers', b, 'enableDebuggingHandlers', 'Enables server endpoints for log collection and local running of containers and commands', 'serving'),
  c('anonymous-auth', b, 'authentication.anonymous.enabled', 'Enables anonymous requests to the clet server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.', 'serving'),
  c('authentication-token-webhook', b, 'authentication.webhook.enabled', 'Use the TokenReview API to determine authentication for bearer tokens.', 'serving'),
  c('authentication-token-webhook-cache-ttl', dur, 'authentication.webhook.cacheTTL', 'The duration to cache responses from the webhook token authenticator.', 'serving'),
  c('client-ca-file', s, 'authentication.x509.clientCAFile', 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.', 'serving'),
  c('authorization-mode', s, 'authorization.mode', 'Authorization mode for Clet server. Valid options are AlwaysAllow or Webhook. Webhook mode uses the SubjectAccessReview API to determine authorization.', 'serving'),
  c('authorization-webhook-cache-authorized-ttl', dur, 'authorization.webhook.cacheAuthorizedTTL', 'The duration to cache \'authorized\' responses from the webhook authorizer.', 'serving'),
  c('authorization-webhook-cache-unauthorized-ttl', dur, 'authorization.webhook.cacheUnauthorizedTTL', 'The duration to cache \'unauthorized\' responses from the webhook authorizer.', 'serving'),
  c('tls-cert-file', s, 'tlsCertFile', 'File containing x509 Certificate used for serving HTTPS (with intermediate certs, if any, concatenated after server cert). If --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory passed to --cert-dir.', 'serving'),
  c('tls-private-key-file', s, 'tlsPrivateKeyFile', 'File containing x509 private key matching --tls-cert-file.', 'serving'),
  f('cert-dir', str, 'certDir', '/var/lib/clet/pki', 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.', 'serving'),
  c('tls-min-version', s, 'tlsMinVersion', 'Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13', 'serving'),
  c('tls-cipher-suites', slice, 'tlsCipherSuites', cipherUsage, 'serving'),
  c('rotate-certificates', b, 'rotateCertificates', 'Auto rotate the clet client certificates by requesting new certificates from the cl-apiserver when the certificate expiration approaches.', 'serving'),
  c('rotate-server-certificates', b, 'serverTLSBootstrap', 'Auto-request and rotate the clet serving certificates by requesting new certificates from the cl-apiserver when the certificate expiration approaches. Requires the RotateCletServerCertificate feature gate to be enabled, and approval of the submitted CertificateSigningRequest objects.', 'serving'),
  c('streaming-connection-idle-timeout', dur, 'streamingConnectionIdleTimeout', 'Maximum time a streaming connection can be idle before the connection is automatically closed. 0 indicates no timeout. Example: \'5m\'. Note: All connections to the clet server have a maximum duration of 4 hours.', 'serving'),

  // API client, runtime, images and logging
  c('cl-api-qps', i32, 'kubeAPIQPS', 'QPS to use while talking with cl-apiserver. The number must be >= 0. If 0 will use DefaultQPS: 5. Doesn\'t cover events and node heartbeat apis which rate limiting is controlled by a different set of flags', 'runtime'),
  c('cl-api-burst', i32, 'kubeAPIBurst', 'Burst to use while talking with cl-apiserver. The number must be >= 0. If 0 will use DefaultBurst: 10. Doesn\'t cover events and node heartbeat apis which rate limiting is controlled by a different set of flags', 'runtime'),
  c('cl-api-content-type', s, 'contentType', 'Content type of requests sent to apiserver.', 'runtime'),
  c('event-qps', i32, 'eventRecordQPS', 'QPS to limit event creations. The number must be >= 0. If 0 will use DefaultQPS: 5.', 'runtime'),
  c('event-burst', i32, 'eventBurst', 'Maximum size of a bursty event records, temporarily allows event records to burst to this number, while still not exceeding event-qps. The number must be >= 0. If 0 will use DefaultBurst: 10.', 'runtime'),
  c('container-runtime-endpoint', s, 'containerRuntimeEndpoint', 'The endpoint of remote runtime service. Unix Domain Sockets are supported on Linux, while npipe and tcp endpoints are supported on windows. Examples:\'unix:///path/to/runtime.sock\', \'npipe:////./pipe/runtime\'', 'runtime'),
  c('image-service-endpoint', s, 'imageServiceEndpoint', 'The endpoint of remote image service. If not specified, it will be the same with --container-runtime-endpoint by default. Unix Domain Socket are supported on Linux, while npipe and tcp endpoints are supported on Windows. Examples:\'unix:///path/to/runtime.sock\', \'npipe:////./pipe/runtime\'', 'runtime'),
  c('runtime-request-timeout', dur, 'runtimeRequestTimeout', 'Timeout of all runtime requests except long running request - pull, logs, exec and attach. When timeout exceeded, clet will cancel the request, throw out an error and retry later.', 'runtime'),
  f('runtime-cgroups', str, 'runtimeCgroups', '', 'Optional absolute name of cgroups to create and run the runtime in.', 'runtime'),
  f('pod-infra-container-image', str, 'podInfraContainerImage', 'registry.k8s.io/pause:3.10', 'Specified image will not be pruned by the image garbage collector. CRI implementations have their own configuration to set this image.', 'runtime', { deprecated: CONFIG_DEPRECATION }),
  f('image-credential-provider-bin-dir', str, 'imageCredentialProviderBinDir', '', 'The path to the directory where credential provider plugin binaries are located.', 'runtime'),
  f('image-credential-provider-config', str, 'imageCredentialProviderConfig', '', 'The path to the credential provider plugin config file.', 'runtime'),
  c('image-gc-high-threshold', i32, 'imageGCHighThresholdPercent', 'The percent of disk usage after which image garbage collection is always run. Values must be within the range [0, 100], To disable image garbage collection, set to 100. ', 'runtime'),
  c('image-gc-low-threshold', i32, 'imageGCLowThresholdPercent', 'The percent of disk usage before which image garbage collection is never run. Lowest disk usage to garbage collect to. Values must be within the range [0, 100] and should not be larger than that of --image-gc-high-threshold.', 'runtime'),
  c('minimum-image-ttl-duration', dur, 'imageMinimumGCAge', 'Minimum age for an unused image before it is garbage collected.  Examples: \'300ms\', \'10s\' or \'2h45m\'.', 'runtime'),
  f('minimum-container-ttl-duration', duration, 'minimumContainerTTLDuration', 0, 'Minimum age for a finished container before it is garbage collected.  Examples: \'300ms\', \'10s\' or \'2h45m\'', 'runtime', { deprecated: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.' }),
  f('maximum-dead-containers', int64, 'maximumDeadContainers', -1, 'Maximum number of old instances of containers to retain globally.  Each container takes up some disk space. To disable, set to a negative number.', 'runtime', { deprecated: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.' }),
  f('maximum-dead-containers-per-container', int32, 'maximumDeadContainersPerContainer', 1, 'Maximum number of old instances to retain per container.  Each container takes up some disk space.', 'runtime', { deprecated: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.' }),
  c('registry-qps', i32, 'registryPullQPS', 'If > 0, limit registry pull QPS to this value.  If 0, unlimited.', 'runtime'),
  c('registry-burst', i32, 'registryBurst', 'Maximum size of a bursty pulls, temporarily allows pulls to burst to this number, while still not exceeding registry-qps. Only used if --registry-qps > 0', 'runtime'),
  c('serialize-image-pulls', b, 'serializeImagePulls', 'Pull images one at a time.', 'runtime'),
  c('container-log-max-files', i32, 'containerLogMaxFiles', '<Warning: Beta feature> Set the maximum number of container log files that can be present for a container. The number must be >= 2.', 'runtime'),
  c('container-log-max-size', s, 'containerLogMaxSize', '<Warning: Beta feature> Set the maximum size (e.g. 10Mi) of container log file before it is rotated.', 'runtime'),
  c('logging-format', s, 'logging.format', 'Sets the log format. Permitted formats: "json" (gated by LoggingBetaOptions), "text".', 'runtime'),
  c('log-flush-frequency', dur, 'logging.flushFrequency', 'Maximum number of seconds between log flushes', 'runtime', { configOnly: false }),
  c('log-json-info-buffer-size', s, 'logging.options.json.infoBufferSize', '[Alpha] In JSON format with split output streams, the info messages can be buffered for a while to increase performance. The default value of zero bytes disables buffering. The size can be specified as number of bytes (512), multiples of 1000 (1K), multiples of 1024 (2Ki), or powers of those (3M, 4G, 5Mi, 6Gi). Enable the LoggingAlphaOptions feature gate to use this.', 'runtime'),
  c('log-json-split-stream', b, 'logging.options.json.splitStream', '[Alpha] In JSON format, write error messages to stderr and info messages to stdout. The default is to write a single stream to stdout. Enable the LoggingAlphaOptions feature gate to use this.', 'runtime'),
  c('log-text-info-buffer-size', s, 'logging.options.text.infoBufferSize', '[Alpha] In text format with split output streams, the info messages can be buffered for a while to increase performance. The default value of zero bytes disables buffering. The size can be specified as number of bytes (512), multiples of 1000 (1K), multiples of 1024 (2Ki), or powers of those (3M, 4G, 5Mi, 6Gi). Enable the LoggingAlphaOptions feature gate to use this.', 'runtime'),
  c('log-text-split-stream', b, 'logging.options.text.splitStream', '[Alpha] In text format, write error messages to stderr and info messages to stdout. The default is to write a single stream to stdout. Enable the LoggingAlphaOptions feature gate to use this.', 'runtime'),
  c('v', levelType as ValueType<never>, 'logging.verbosity', 'number for the log level verbosity', 'runtime', { shorthand: 'v', configOnly: false }),
  c('vmodule', vmoduleType as ValueType<never>, 'logging.vmodule', 'comma-separated list of pattern=N settings for file-filtered logging (only works for text log format)', 'runtime', { configOnly: false }),
  c('contention-profiling', b, 'enableContentionProfiling', 'Enable block profiling, if profiling is enabled', 'runtime'),
  c('volume-plugin-dir', s, 'volumePluginDir', 'The full path of the directory in which to search for additional third party volume plugins', 'runtime'),
  c('volume-stats-agg-period', dur, 'volumeStatsAggPeriod', 'Specifies interval for clet to calculate and cache the volume disk usage for all pods and volumes.  To disable volume calculations, set to a negative number.', 'runtime'),
  c('enable-controller-attach-detach', b, 'enableControllerAttachDetach', 'Enables the Attach/Detach controller to manage attachment/detachment of volumes scheduled to this node, and disables clet from executing any attach/detach operations', 'runtime'),
  c('local-storage-capacity-isolation', b, 'localStorageCapacityIsolation', 'If true, local ephemeral storage isolation is enabled. Otherwise, local storage isolation feature will be disabled', 'runtime'),
  f('experimental-mounter-path', str, 'experimentalMounterPath', '', '[Experimental] Path of mounter binary. Leave empty to use the default mount.', 'runtime', { deprecated: 'will be removed in 1.24 or later, in favor of using CSI.' }),
  { name: 'help', shorthand: 'h', type: bool as ValueType<unknown>, usage: 'help for clet', section: 'runtime', special: 'help', default: false, configOnly: false },
  { name: 'version', type: { name: 'version', optionalValue: 'true', parse: (t: string) => checkVersionFlag(t), format: (v: unknown) => String(v), isZero: (v: unknown) => v === 'false' } as ValueType<unknown>, usage: '--version, --version=raw prints version information and quits; --version=vX.Y.Z... sets the reported version', section: 'runtime', special: 'version', default: 'false', configOnly: false },

  // Resources, cgroups, policies, eviction, networking
  c('allowed-unsafe-sysctls', slice, 'allowedUnsafeSysctls', 'Comma-separated whitelist of unsafe sysctls or unsafe sysctl patterns (ending in *). Use these at your own risk.', 'resources'),
  c('cgroup-driver', s, 'cgroupDriver', 'Driver that the clet uses to manipulate cgroups on the host.  Possible values: \'cgroupfs\', \'systemd\'', 'resources'),
  c('cgroup-root', s, 'cgroupRoot', 'Optional root cgroup to use for pods. This is handled by the container runtime on a best effort basis. Default: \'\', which means use the container runtime default.', 'resources'),
  c('cgroups-per-qos', b, 'cgroupsPerQOS', 'Enable creation of QoS cgroup hierarchy, if true top level QoS and pod cgroups are created.', 'resources'),
  c('clet-cgroups', s, 'kubeletCgroups', 'Optional absolute name of cgroups to create and run the Clet in.', 'resources'),
  c('system-cgroups', s, 'systemCgroups', 'Optional absolute name of cgroups in which to place all non-kernel processes that are not already inside a cgroup under \'/\'. Empty for no container. Rolling back the flag requires a reboot.', 'resources'),
  c('cpu-cfs-quota', b, 'cpuCFSQuota', 'Enable CPU CFS quota enforcement for containers that specify CPU limits', 'resources'),
  c('cpu-cfs-quota-period', dur, 'cpuCFSQuotaPeriod', 'Sets CPU CFS quota period value, cpu.cfs_period_us, defaults to Linux Kernel default', 'resources'),
  c('cpu-manager-policy', s, 'cpuManagerPolicy', 'CPU Manager policy to use. Possible values: \'none\', \'static\'.', 'resources'),
  c('cpu-manager-policy-options', noSplitMap as ValueType<never>, 'cpuManagerPolicyOptions', 'A set of key=value CPU Manager policy options to use, to fine tune their behaviour. If not supplied, keep the default behaviour.', 'resources'),
  c('cpu-manager-reconcile-period', dur, 'cpuManagerReconcilePeriod', '<Warning: Alpha feature> CPU Manager reconciliation period. Examples: \'10s\', or \'1m\'. If not supplied, defaults to \'NodeStatusUpdateFrequency\'', 'resources'),
  c('memory-manager-policy', s, 'memoryManagerPolicy', 'Memory Manager policy to use. Possible values: \'None\', \'Static\'.', 'resources'),
  c('topology-manager-policy', s, 'topologyManagerPolicy', 'Topology Manager policy to use. Possible values: \'none\', \'best-effort\', \'restricted\', \'single-numa-node\'.', 'resources'),
  c('topology-manager-policy-options', noSplitMap as ValueType<never>, 'topologyManagerPolicyOptions', 'A set of key=value Topology Manager policy options to use, to fine tune their behaviour. If not supplied, keep the default behaviour.', 'resources'),
  c('topology-manager-scope', s, 'topologyManagerScope', 'Scope to which topology hints applied. Topology Manager collects hints from Hint Providers and applies them to defined scope to ensure the pod admission. Possible values: \'container\', \'pod\'.', 'resources'),
  c('enforce-node-allocatable', slice, 'enforceNodeAllocatable', 'A comma separated list of levels of node allocatable enforcement to be enforced by clet. Acceptable options are \'none\', \'pods\', \'system-reserved\', and \'cl-reserved\'. If the latter two options are specified, \'--system-reserved-cgroup\' and \'--cl-reserved-cgroup\' must also be set, respectively. If \'none\' is specified, no additional options should be set.', 'resources'),
  c('cl-reserved', configurationMap as ValueType<never>, 'kubeReserved', 'A set of ResourceName=ResourceQuantity (e.g. cpu=200m,memory=500Mi,ephemeral-storage=1Gi) pairs that describe resources reserved for cluster system components. Currently only cpu, memory and local ephemeral storage for root file system are supported. [default=none]', 'resources'),
  c('cl-reserved-cgroup', s, 'kubeReservedCgroup', 'Absolute name of the top level cgroup that is used to manage cluster components for which compute resources were reserved via \'--cl-reserved\' flag. Ex. \'/cl-reserved\'. [default=\'\']', 'resources'),
  c('system-reserved', configurationMap as ValueType<never>, 'systemReserved', 'A set of ResourceName=ResourceQuantity (e.g. cpu=200m,memory=500Mi,ephemeral-storage=1Gi) pairs that describe resources reserved for non-cluster components. Currently only cpu, memory and local ephemeral storage for root file system are supported. [default=none]', 'resources'),
  c('system-reserved-cgroup', s, 'systemReservedCgroup', 'Absolute name of the top level cgroup that is used to manage non-cluster components for which compute resources were reserved via \'--system-reserved\' flag. Ex. \'/system-reserved\'. [default=\'\']', 'resources'),
  c('reserved-cpus', s, 'reservedSystemCPUs', 'A comma-separated list of CPUs or CPU ranges that are reserved for system and cluster usage. This specific list will supersede cpu counts in --system-reserved and --cl-reserved.', 'resources'),
  c('reserved-memory', reservedMemoryType as ValueType<never>, 'reservedMemory', 'A comma separated list of memory reservations for NUMA nodes. (e.g. --reserved-memory 0:memory=1Gi,hugepages-1M=2Gi --reserved-memory 1:memory=2Gi). The total sum for each memory type should be equal to the sum of cl-reserved, system-reserved and eviction-threshold.', 'resources'),
  c('qos-reserved', configurationMap as ValueType<never>, 'qosReserved', '<Warning: Alpha feature> A set of ResourceName=Percentage (e.g. memory=50%) pairs that describe how pod resource requests are reserved at the QoS level. Currently only memory is supported. Requires the QOSReserved feature gate to be enabled.', 'resources'),
  f('experimental-allocatable-ignore-eviction', bool, 'experimentalAllocatableIgnoreEviction', false, 'When set to \'true\', Hard Eviction Thresholds will be ignored while calculating Node Allocatable.', 'resources', { deprecated: 'will be removed in 1.25 or later.' }),
  c('eviction-hard', langleSeparatedMap as ValueType<never>, 'evictionHard', 'A set of eviction thresholds (e.g. memory.available<1Gi) that if met would trigger a pod eviction.', 'resources'),
  c('eviction-soft', langleSeparatedMap as ValueType<never>, 'evictionSoft', 'A set of eviction thresholds (e.g. memory.available<1.5Gi) that if met over a corresponding grace period would trigger a pod eviction.', 'resources'),
  c('eviction-soft-grace-period', configurationMap as ValueType<never>, 'evictionSoftGracePeriod', 'A set of eviction grace periods (e.g. memory.available=1m30s) that correspond to how long a soft eviction threshold must hold before triggering a pod eviction.', 'resources'),
  c('eviction-minimum-reclaim', configurationMap as ValueType<never>, 'evictionMinimumReclaim', 'A set of minimum reclaims (e.g. imagefs.available=2Gi) that describes the minimum amount of resource the clet will reclaim when performing a pod eviction if that resource is under pressure.', 'resources'),
  c('eviction-max-pod-grace-period', i32, 'evictionMaxPodGracePeriod', 'Maximum allowed grace period (in seconds) to use when terminating pods in response to a soft eviction threshold being met. If negative, defer to pod specified value.', 'resources'),
  c('eviction-pressure-transition-period', dur, 'evictionPressureTransitionPeriod', 'Duration for which the clet has to wait before transitioning out of an eviction pressure condition.', 'resources'),
  c('kernel-memcg-notification', b, 'kernelMemcgNotification', 'If enabled, the clet will integrate with the kernel memcg notification to determine if memory eviction thresholds are crossed rather than polling.', 'resources'),
  c('max-open-files', i64, 'maxOpenFiles', 'Number of files that can be opened by Clet process.', 'resources'),
  c('oom-score-adj', i32, 'oomScoreAdj', 'The oom-score-adj value for clet process. Values must be within the range [-1000, 1000]', 'resources'),
  c('protect-kernel-defaults', b, 'protectKernelDefaults', 'Default clet behaviour for kernel tuning. If set, clet errors if any of kernel tunables is different than clet defaults.', 'resources'),
  c('seccomp-default', b, 'seccompDefault', 'Enable the use of `RuntimeDefault` as the default seccomp profile for all workloads.', 'resources', { configOnly: false }),
  c('cluster-dns', slice, 'clusterDNS', 'Comma-separated list of DNS server IP address.  This value is used for containers DNS server in case of Pods with "dnsPolicy=ClusterFirst". Note: all DNS servers appearing in the list MUST serve the same set of records otherwise name resolution within the cluster may not work correctly. There is no guarantee as to which DNS server may be contacted for name resolution.', 'resources'),
  c('cluster-domain', s, 'clusterDomain', 'Domain for this cluster.  If set, clet will configure all containers to search this domain in addition to the host\'s search domains', 'resources'),
  c('resolv-conf', s, 'resolvConf', 'Resolver configuration file used as the basis for the container DNS resolution configuration.', 'resources'),
  c('hairpin-mode', s, 'hairpinMode', 'How should the clet setup hairpin NAT. This allows endpoints of a Service to loadbalance back to themselves if they should try to access their own Service. Valid values are "promiscuous-bridge", "hairpin-veth" and "none".', 'resources'),
  c('make-iptables-util-chains', b, 'makeIPTablesUtilChains', 'If true, clet will ensure iptables utility rules are present on host.', 'resources'),

  // Feature gates (usage filled in from the gate table)
  c('feature-gates', featureGateMap as ValueType<never>, 'featureGates', 'A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:', 'gates'),
];
