// The node agent's life: resolve the configuration (exit 1 with every error before anything binds), run
// the start-up checks, start the pod runtime and the servers, and stop cleanly on SIGTERM/SIGINT.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, hostname } from 'node:os';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { formatDuration, parseDuration } from '@cl/flags';
import { HealthChecks, healthSliMetrics, logCheck, pingCheck } from '@cl/healthz';
import { helpText } from './help';
import { Logger, logFn, loggingOptions } from './log';
import { createPodManager, defaultNodeIP, type PodManager } from './pods';
import { joinCluster, type ClusterMembership } from './node/join';
import { flagLines } from './options';
import { resolve, type Resolved } from './resolve';
import { buildAuth } from './server/auth';
import { loadKubeconfig, type ClientConfig as ApiServerConnection } from '@cl/kube-client';
import { closeServer, startHealthServer, startMainServer, startReadOnlyServer, type Listening } from './server/servers';
import type { HandlerDeps } from './server/handlers';
import { NodeRuntime } from './server/node-runtime';
import { applyOwnOomScoreAdj, CgroupFs, cgroupSettings, PodCgroups } from './cgroups';
import { effectiveMaxPods } from './node/facts';
import { checkKernelDefaults, checkResourceManagers, checkSwap } from './startup/checks';
import { isCgroupV1 } from './startup/host';
import { checkSystemCgroupFlags, moveSelfToCgroup } from './startup/own-cgroups';
import { credentialProvidersAtStart } from './credential-provider';
import { checkFixedGates, checkInertSettings } from './startup/inert-settings';
import { setMaxOpenFiles } from './startup/max-open-files';
import { initNetworkUtil } from './startup/iptables-util-chains';
import { fileDefaults } from './config/defaults';
import { acquireLock, watchContention, type HeldLock } from './startup/lock';
import { DEFAULT_VERSION, PRODUCT_NAME, checkVersionFlag, rawVersion } from './version';

export interface RunIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the process should shut down (SIGTERM/SIGINT in main.ts, or requestShutdown). */
  shutdown: Promise<void>;
  /** Lock contention and --runonce end the process this way (exit 0). */
  requestShutdown: () => void;
}

export interface Running {
  nodeName: string;
  version: string;
  servers: { health?: Listening; readOnly?: Listening; main?: Listening };
}

// The certificate request code (and @peculiar/x509 under it, ~100 ms of start-up) loads only for a node that
// bootstraps or rotates its certificates.
const certificates = () => import('./certificates');

function commandFailed(log: Logger, err: string): void {
  log.error('command failed', undefined, err);
}

/** Runs the agent; resolves with the exit code. */
export async function run(argv: readonly string[], io: RunIO): Promise<number> {
  const streams = { stdout: { write: io.stdout }, stderr: { write: io.stderr } };
  // Until the configuration is read, lines go out in the default text format.
  let log = Logger.create({ name: 'clet', ...streams });
  const cgroupV1 = isCgroupV1();
  const outcome = resolve(argv, {
    log: logFn(log),
    cgroupV1,
    dropInDirEnv: io.env.CLET_CONFIG_DROPIN_DIR_ALPHA,
  });
  if (outcome.kind === 'help') {
    io.stdout(helpText());
    return 0;
  }
  // Deprecation warnings go to stderr on the first parse, as pflag prints them.
  const cmd = outcome.kind === 'run' ? outcome.resolved.cmd : outcome.cmd;
  if (cmd) for (const w of cmd.parsed.warnings) io.stderr(w + '\n');
  if (outcome.kind === 'version') {
    io.stdout(outcome.cmd.version === 'raw' ? rawVersion(DEFAULT_VERSION) + '\n' : `${PRODUCT_NAME} ${DEFAULT_VERSION}\n`);
    return 0;
  }
  if (outcome.kind === 'errors') {
    for (const e of outcome.errors) commandFailed(log, e);
    return 1;
  }
  const r = outcome.resolved;
  log = Logger.create(loggingOptions(r.config.logging, streams, parseDuration(r.config.logging.flushFrequency)));
  if (log.enabled(1)) for (const line of flagLines(r.cmd)) log.v(1, line);
  let version = DEFAULT_VERSION;
  if (r.cmd.version !== 'false') version = checkVersionFlag(r.cmd.version);
  if (cgroupV1) log.warn('cgroup v1 support is in maintenance mode, please migrate to cgroup v2');

  const stops: Array<() => Promise<void> | void> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    await start(r, log, version, stops, io);
  } catch (e) {
    commandFailed(log, `failed to run Clet: ${(e as Error).message}`);
    await stopAll();
    return 1;
  }
  await io.shutdown;
  log.info('Shutting down the clet');
  await stopAll();
  log.stop();
  return 0;
}

async function start(r: Resolved, log: Logger, version: string, stops: Array<() => Promise<void> | void>, io: RunIO): Promise<void> {
  const { config, flags } = r;
  const logLine = logFn(log);

  let lock: HeldLock | undefined;
  if (flags.lockFile !== '') {
    lock = await acquireLock(flags.lockFile);
    const held = lock;
    stops.push(() => held.release());
    if (flags.exitOnLockContention) {
      const w = watchContention(flags.lockFile, () => {
        log.info('Inotify event', { path: flags.lockFile });
        io.requestShutdown();
      });
      stops.push(() => w.close());
    }
  }

  const nodeName = (flags.hostnameOverride !== '' ? flags.hostnameOverride : hostname()).trim().toLowerCase();
  if (nodeName === '') throw new Error('empty hostname is invalid');
  const certInfo = (msg: string, fields?: Record<string, unknown>) => log.named('certificates').info(msg, fields);

  // TLS bootstrap: --clconfig is written from the bootstrap credentials when it is missing or expired.
  if (flags.bootstrapClconfig !== '' && flags.clconfig === '') throw new Error('--bootstrap-clconfig needs --clconfig: the path where the clconfig it bootstraps is written');
  if (flags.bootstrapClconfig !== '') {
    const { bootstrapClientCertificate } = await certificates();
    await bootstrapClientCertificate({ clconfig: flags.clconfig, bootstrapClconfig: flags.bootstrapClconfig, certDir: flags.certDir, nodeName, log: certInfo });
  }
  let api: ApiServerConnection | null = null;
  if (flags.clconfig === '') log.info('Standalone mode, no API client');
  else api = loadKubeconfig(flags.clconfig);
  if (api && config.rotateCertificates) {
    // Before any API client exists: the rotation swaps the certificate under them.
    const { startClientRotation } = await certificates();
    const rotation = startClientRotation({ api, certDir: flags.certDir, nodeName, log: certInfo });
    stops.push(() => rotation.stop());
  }

  const auth = buildAuth(config, r.clientCA, api);

  mkdirSync(flags.rootDir, { recursive: true, mode: 0o750 });
  let certFile = config.tlsCertFile;
  let keyFile = config.tlsPrivateKeyFile;
  // serverTLSBootstrap: the serving certificate comes from the cluster (below), nothing self-signed.
  const servingFromCluster = config.serverTLSBootstrap && !!api;
  if (config.enableServer && certFile === '' && !servingFromCluster) {
    mkdirSync(flags.certDir, { recursive: true, mode: 0o755 });
    certFile = join(flags.certDir, 'clet.crt');
    keyFile = join(flags.certDir, 'clet.key');
    if (!existsSync(certFile) || !existsSync(keyFile)) {
      // The certificate library is loaded only when a pair must be made: it is a large share of start-up time.
      const { generateSelfSignedServing } = await import('@cl/pki');
      await generateSelfSignedServing({ hosts: [nodeName, 'localhost', '127.0.0.1'], dir: flags.certDir, name: 'clet' });
      log.info('Generated self-signed serving certificate', { certFile, keyFile });
    }
  }

  const swapErr = checkSwap(config.failSwapOn, logLine);
  if (swapErr) throw new Error(swapErr);
  const kernelErrs = checkKernelDefaults(config.protectKernelDefaults, logLine);
  if (kernelErrs.length > 0) throw new Error(kernelErrs.length === 1 ? kernelErrs[0] : `[${kernelErrs.join(', ')}]`);
  const credentials = credentialProvidersAtStart(flags.imageCredentialProviderConfig, flags.imageCredentialProviderBinDir, logFn(log.named('credentials')));
  const managerErrs = [...checkResourceManagers(config, isCgroupV1()), ...checkSystemCgroupFlags(config.systemCgroups, flags.runtimeCgroups), ...credentials.errors,
    ...checkInertSettings(config, flags, fileDefaults()), ...checkFixedGates(r.gates)];
  if (managerErrs.length > 0) throw new Error(managerErrs.length === 1 ? managerErrs[0] : `[${managerErrs.join(', ')}]`);
  applyOwnOomScoreAdj(config.oomScoreAdj, logLine);
  // Awaited before the pod manager starts: pods and servers open files only after the limit is set.
  const openFiles = setMaxOpenFiles(config.maxOpenFiles, logLine);
  if (config.kubeletCgroups !== '') {
    const dirs = moveSelfToCgroup(CgroupFs.host(), config.kubeletCgroups);
    log.info('Moved the clet into its cgroup', { cgroup: config.kubeletCgroups, dirs: dirs.join(',') });
  }
  // The QoS cgroups and node allocatable exist before any pod runs; the pod manager makes each pod's cgroup.
  const podCgroups = PodCgroups.start(cgroupSettings(config), CgroupFs.host(), logFn(log.named('cgroups')));
  // --pods-per-core lowers the pod count the node advertises and admits.
  const podConfig = { ...config, maxPods: effectiveMaxPods(config.maxPods, config.podsPerCore, cpus().length) };

  // The servers' own runtime connection (logs, exec, stats, node status); the pod manager keeps its own.
  const runtime = new NodeRuntime(config.containerRuntimeEndpoint, config.imageServiceEndpoint, parseDuration(config.runtimeRequestTimeout || '2m'));
  stops.push(() => runtime.close());
  const nodeIP = flags.nodeIP !== '' ? flags.nodeIP : defaultNodeIP();
  // With --clconfig the node joins the cluster: the API server's pods reach the pod manager through it.
  let cluster: ClusterMembership | undefined;
  if (api && !config.runOnce) {
    cluster = joinCluster({
      api, config: podConfig, flags, nodeName, nodeIP, version, cri: runtime.cri, log: log.named('node'),
      setApiPods: (pods) => podManager.setApiPods(pods),
      syncLoopHealthy: () => podManager.syncLoopHealthy(),
      nodePressure: () => podManager.nodePressure(),
    });
  }
  const probeMetrics = new Registry();
  const metrics = new Registry();
  // Upstream's kubelet_evictions, by the signal each eviction reclaimed for.
  const evictions = new Counter({ name: 'clet_evictions', help: 'Cumulative number of pod evictions by eviction signal', labelNames: ['eviction_signal'], registers: [metrics] });
  const podManager: PodManager = createPodManager({
    config: podConfig,
    cgroups: podCgroups,
    nodeName,
    log: logFn(log.named('pods')),
    probeMetrics,
    rootDir: flags.rootDir,
    podInfraContainerImage: flags.podInfraContainerImage,
    minimumContainerTTLDuration: flags.minimumContainerTTLDuration,
    maximumDeadContainersPerContainer: flags.maximumDeadContainersPerContainer,
    maximumDeadContainers: flags.maximumDeadContainers,
    nodeIP,
    evictionCount: (signal) => evictions.inc({ eviction_signal: signal }),
    ...(credentials.providers ? { imageCredentials: credentials.providers } : {}),
    ...(cluster ? { reports: cluster.reports, pullSecrets: cluster.secrets, apiObjects: cluster.apiObjects } : {}),
  });
  await openFiles;
  await podManager.start();
  stops.push(() => podManager.stop());
  if (config.podCIDR !== '') {
    // As upstream at start: the runtime hears the pod CIDR (a failure is logged, not fatal).
    log.info('Updating Pod CIDR', { originalPodCIDR: '', newPodCIDR: config.podCIDR });
    await runtime.cri.updateRuntimeConfig(config.podCIDR).catch((e: Error) => log.error('Pod CIDR update failed', undefined, e.message));
  }
  if (config.runOnce) {
    log.info('Pods started in runonce mode, exiting');
    io.requestShutdown();
    return;
  }

  collectDefaultMetrics({ register: metrics, prefix: 'clet_process_' });
  new Gauge({
    name: 'clet_running_pods',
    help: 'Number of pods that have a running pod sandbox',
    registers: [metrics],
    collect() {
      this.set(podManager.pods().length);
    },
  });
  new Gauge({ name: 'clet_node_name', help: 'The node\'s name. The count is always 1.', labelNames: ['node'], registers: [metrics] }).set({ node: nodeName }, 1);
  const sliMetrics = new Registry();
  const health = new HealthChecks({ log: logLine, metrics: healthSliMetrics(sliMetrics) });
  // As upstream's `log` check: fails once the log cannot be written (a flush fails or blocks).
  const logHealth = logCheck(() => log.flush());
  stops.push(() => logHealth.stop());
  health.add(['healthz'], pingCheck());
  health.add(['healthz'], logHealth);
  health.add(['healthz'], {
    name: 'syncloop',
    check: async () => {
      const err = podManager.syncLoopHealthy();
      if (err) throw err;
    },
  });
  const deps: HandlerDeps = {
    nodeName,
    startTime: new Date(),
    pods: () => podManager.pods(),
    health,
    metrics,
    sliMetrics,
    configz: () => ({ kubeletconfig: config }),
    debugging: config.enableDebuggingHandlers,
    runtime,
    rootDir: flags.rootDir,
    podLogsDir: config.podLogsDir || '/var/log/pods',
    systemLogDir: '/var/log',
    log: logLine,
    checkpoint: r.gates.enabled('ContainerCheckpoint'),
    probeMetrics,
    streamingIdleTimeoutMs: parseDuration(config.streamingConnectionIdleTimeout || '0s'),
    setVerbosity: (v) => {
      log.verbosity = v;
    },
  };

  const servers: Running['servers'] = {};
  const mainServerOptions = (cert: Buffer, key: Buffer) => ({
    address: config.address,
    port: config.port,
    cert,
    key,
    clientCA: r.clientCA,
    minVersion: r.tls.minVersion,
    ciphers: r.tls.ciphers,
    auth,
    fineGrainedAuthz: r.gates.enabled('CletFineGrainedAuthz'),
  });
  if (config.enableServer && servingFromCluster && api) {
    // As upstream: nothing is served on the port until the serving certificate is issued; later ones replace
    // the server's TLS context in place.
    let starting: Promise<void> | undefined;
    const { startServingCertificates } = await certificates();
    const serving = startServingCertificates({
      api, certDir: flags.certDir, nodeName, hostnames: [nodeName, hostname().toLowerCase()], addresses: [nodeIP], log: certInfo,
      onCertificate: (certPem, keyPem) => {
        const o = mainServerOptions(Buffer.from(certPem), Buffer.from(keyPem));
        if (servers.main) return (servers.main.server as unknown as import('node:tls').Server).setSecureContext({ cert: o.cert, key: o.key, ca: o.clientCA ?? undefined, minVersion: o.minVersion, ciphers: o.ciphers });
        if (starting) return;
        starting = startMainServer(o, deps, logLine).then(
          (main) => {
            servers.main = main;
            stops.push(() => closeServer(main));
            log.info('Starting to listen', { address: config.address, port: main.port });
          },
          (e: Error) => log.error('Starting the main server failed', undefined, e.message),
        );
      },
    });
    stops.push(() => serving.stop());
  } else if (config.enableServer) {
    servers.main = await startMainServer(
      {
        address: config.address,
        port: config.port,
        cert: readFileSync(certFile),
        key: readFileSync(keyFile),
        clientCA: r.clientCA,
        minVersion: r.tls.minVersion,
        ciphers: r.tls.ciphers,
        auth,
        fineGrainedAuthz: r.gates.enabled('CletFineGrainedAuthz'),
      },
      deps,
      logLine,
    );
    const main = servers.main;
    stops.push(() => closeServer(main));
    log.info('Starting to listen', { address: config.address, port: servers.main.port });
  }
  if (config.readOnlyPort > 0) {
    servers.readOnly = await startReadOnlyServer(config.address, config.readOnlyPort, deps, logLine);
    const ro = servers.readOnly;
    stops.push(() => closeServer(ro));
    log.info('Starting to listen read-only', { address: config.address, port: servers.readOnly.port });
  }
  if (config.healthzPort > 0) {
    servers.health = await startHealthServer(config.healthzBindAddress, config.healthzPort, logLine);
    const h = servers.health;
    stops.push(() => closeServer(h));
    log.info('Started healthz server', { address: config.healthzBindAddress, port: servers.health.port });
  }
  if (cluster) {
    // Registration, the lease, node status and the API server's pods start once the servers listen (upstream's
    // Run and its health server start side by side): their TLS handshakes and first responses would otherwise
    // interleave with the servers' start (bench/clet-start). Nothing above waits on them.
    const c = cluster;
    c.start();
    stops.push(() => c.stop());
  }
  if (config.makeIPTablesUtilChains) {
    // Beside the running agent, as upstream's Run starts it. Each iptables call forks this process, ~10 ms of
    // its main thread apiece (a dozen calls: ~150 ms), so the calls begin once the servers answer.
    const networkUtil = initNetworkUtil(logLine);
    stops.push(() => networkUtil.stop());
  }
  log.info('Started clet', {
    nodeName,
    version,
    syncFrequency: formatDuration(parseDuration(config.syncFrequency)),
  });
}
