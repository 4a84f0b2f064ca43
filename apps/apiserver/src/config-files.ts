// The API server's configuration files that this module owns (egress selector, tracing, admission), loaded
// through @cl/config before anything binds, together with upstream's flag-versus-file rules for every
// configuration flag the server has. All problems are returned at once.
import {
  admissionPluginConfiguration,
  loadAdmissionConfigurationFile,
  loadEgressSelectorConfigurationFile,
  loadTracingConfigurationFile,
  validateApiserverConfigFlags,
  ValidationError,
  type AdmissionConfiguration,
  type EgressSelectorConfiguration,
  type TracingConfiguration,
} from '@cl/config';

export interface ConfigFiles {
  egress?: EgressSelectorConfiguration;
  tracing?: TracingConfiguration;
  admission?: AdmissionConfiguration;
}

type FlagValues = Record<string, unknown>;

const str = (v: FlagValues, name: string) => (typeof v[name] === 'string' && v[name] !== '' ? (v[name] as string) : undefined);

/** Errors as the command prints them: one line each, `<file>: <field error>` for validation errors. */
function collect(errors: string[], file: string, load: () => void) {
  try {
    load();
  } catch (e) {
    if (e instanceof ValidationError) for (const fe of e.errors) errors.push(`${file}: ${fe.message}`);
    else errors.push((e as Error).message);
  }
}

export function loadConfigFiles(values: FlagValues, explicit: Set<string>): { files: ConfigFiles; errors: string[] } {
  const anyExplicit = (prefix: string) => [...explicit].some((n) => n.startsWith(prefix));
  const errors = validateApiserverConfigFlags({
    authenticationConfig: str(values, 'authentication-config'),
    anonymousAuthFlagSet: explicit.has('anonymous-auth'),
    oidcFlagsSet: anyExplicit('oidc-'),
    authorizationConfig: str(values, 'authorization-config'),
    authorizationModeFlagSet: explicit.has('authorization-mode'),
    authorizationWebhookFlagsSet: anyExplicit('authorization-webhook-'),
    egressSelectorConfigFile: str(values, 'egress-selector-config-file'),
    tracingConfigFile: str(values, 'tracing-config-file'),
    admissionControlConfigFile: str(values, 'admission-control-config-file'),
  });
  const files: ConfigFiles = {};
  if (errors.length > 0) return { files, errors };
  const egress = str(values, 'egress-selector-config-file');
  if (egress) collect(errors, egress, () => (files.egress = loadEgressSelectorConfigurationFile(egress)));
  const tracing = str(values, 'tracing-config-file');
  if (tracing) collect(errors, tracing, () => (files.tracing = loadTracingConfigurationFile(tracing)));
  const admission = str(values, 'admission-control-config-file');
  if (admission) collect(errors, admission, () => (files.admission = loadAdmissionConfigurationFile(admission)));
  return { files, errors };
}

/**
 * The admission initializer's start-up step: resolve each plugin's configuration (embedded or from its file)
 * so a plugin whose file went missing since validation fails the hook, as upstream fails start-up.
 */
export function initializeAdmission(config: AdmissionConfiguration | undefined, log: (line: string) => void): void {
  if (!config) return;
  for (const plugin of config.plugins ?? []) {
    const text = admissionPluginConfiguration(config, plugin.name);
    log(`admission plugin ${JSON.stringify(plugin.name)}: ${text === null ? 'no configuration' : `configuration of ${text.length} bytes`}`);
  }
}
