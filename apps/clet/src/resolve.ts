// From argv to a validated effective configuration: every step of upstream's RunE up to building the
// dependencies, with each step's error wrapping. Independent steps all run, so one invocation reports
// every problem; a step whose input is broken (an unreadable config file) ends the chain.
import { readFileSync } from 'node:fs';
import type { FeatureGate } from '@cl/flags';
import { flagDefaults } from './config/defaults';
import { loadConfigFile, mergeDropIns, type Log } from './config/load';
import { validateNodeLabels } from './config/node-labels';
import type { CletConfiguration, CletFlags } from './config/types';
import { aggregate, validateCletConfiguration, validateLogging } from './config/validate';
import { newFeatureGate } from './flags/gates';
import { applyExplicitFlags, parseCommandLine, type CommandLine } from './options';
import { tlsCipherList, tlsMinVersion } from './server/tls-options';
import type { SecureVersion } from 'node:tls';

export interface Resolved {
  cmd: CommandLine;
  config: CletConfiguration;
  flags: CletFlags;
  gates: FeatureGate;
  tls: { minVersion: SecureVersion; ciphers?: string };
  clientCA: Buffer | null;
}

export type Outcome =
  | { kind: 'help'; cmd: CommandLine }
  | { kind: 'version'; cmd: CommandLine }
  | { kind: 'errors'; errors: string[]; cmd?: CommandLine }
  | { kind: 'run'; resolved: Resolved };

export interface ResolveEnv {
  log: Log;
  /** Whether the host runs cgroup v1. */
  cgroupV1: boolean;
  /** CLET_CONFIG_DROPIN_DIR_ALPHA, the environment spelling of --config-dir. */
  dropInDirEnv?: string;
}

export function resolve(argv: readonly string[], env: ResolveEnv): Outcome {
  const cmd = parseCommandLine(argv);
  const errors: string[] = cmd.parsed.errors.map((e) => `failed to parse clet flag: ${e}`);
  if (errors.length > 0) return { kind: 'errors', errors, cmd };
  if (cmd.parsed.args.length > 0) return { kind: 'errors', errors: [`unknown command ${cmd.parsed.args[0]}`], cmd };
  if (cmd.help) return { kind: 'help', cmd };
  if (cmd.version === 'true' || cmd.version === 'raw') return { kind: 'version', cmd };

  const flags = cmd.flags;
  if (flags.configDir === '' && env.dropInDirEnv) flags.configDir = env.dropInDirEnv;
  const flagGates = (cmd.parsed.values['feature-gates'] ?? {}) as Record<string, boolean>;
  const gates = newFeatureGate();
  try {
    gates.setFromMap(flagGates);
  } catch (e) {
    errors.push(`failed to set feature gates from initial flags-based config: ${(e as Error).message}`);
  }
  const labelErr = validateNodeLabels(flags.nodeLabels);
  if (labelErr) errors.push(`failed to validate clet flags: ${labelErr}`);
  if (flags.exitOnLockContention && flags.lockFile === '') {
    errors.push('failed to run Clet: cannot exit on lock file contention: no lock file specified');
  }

  let base = flagDefaults();
  if (flags.config !== '') {
    try {
      base = loadConfigFile(flags.config, env.log);
    } catch (e) {
      errors.push(`failed to load clet config file, path: ${flags.config}, error: ${(e as Error).message}`);
      return { kind: 'errors', errors, cmd };
    }
  }
  if (flags.configDir !== '') {
    try {
      base = mergeDropIns(base, flags.configDir, env.log);
    } catch (e) {
      errors.push(`failed to merge clet configs: ${(e as Error).message}`);
      return { kind: 'errors', errors, cmd };
    }
  }
  const config = applyExplicitFlags(base, cmd);
  const effectiveGates = newFeatureGate();
  try {
    effectiveGates.setFromMap(config.featureGates);
  } catch (e) {
    const msg = `failed to set feature gates from initial flags-based config: ${(e as Error).message}`;
    if (!errors.includes(msg)) errors.push(msg);
    return { kind: 'errors', errors, cmd };
  }

  const loggingErrs = validateLogging(config, effectiveGates);
  if (loggingErrs.length > 0) errors.push(`initialize logging: ${aggregate(loggingErrs)}`);
  const configErrs = validateCletConfiguration(config, { gates: effectiveGates, cgroupV1: env.cgroupV1 });
  if (configErrs.length > 0) {
    errors.push(`failed to validate clet configuration, error: ${aggregate(configErrs)}, path: &TypeMeta{Kind:,APIVersion:,}`);
  }

  // UnsecuredDependencies: TLS settings and files.
  const depErrs: string[] = [];
  let minVersion: SecureVersion = 'TLSv1.2';
  let ciphers: string | undefined;
  try {
    minVersion = tlsMinVersion(config.tlsMinVersion);
  } catch (e) {
    depErrs.push((e as Error).message);
  }
  try {
    ciphers = tlsCipherList(config.tlsCipherSuites);
  } catch (e) {
    depErrs.push((e as Error).message);
  }
  let clientCA: Buffer | null = null;
  const caFile = config.authentication.x509.clientCAFile;
  if (caFile !== '') {
    try {
      clientCA = readFileSync(caFile);
      if (!clientCA.toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
        depErrs.push(`unable to load client CA file ${caFile}: data does not contain any valid RSA or ECDSA certificates`);
      }
    } catch (e) {
      depErrs.push(`unable to load client CA file ${caFile}: open ${caFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
    }
  }
  if ((config.tlsCertFile === '') !== (config.tlsPrivateKeyFile === '')) {
    depErrs.push('both --tls-cert-file and --tls-private-key-file must be given, or neither');
  }
  for (const e of depErrs) errors.push(`failed to construct clet dependencies: ${e}`);

  if (errors.length > 0) return { kind: 'errors', errors, cmd };
  return { kind: 'run', resolved: { cmd, config, flags, gates: effectiveGates, tls: { minVersion, ciphers }, clientCA } };
}
