export * from './field';
export * from './types';
export { EGRESS_NAME_ALIASES, DEFAULT_AUTHORIZED_TTL_MS, DEFAULT_UNAUTHORIZED_TTL_MS, type ConfigKind } from './kinds/scheme';
export {
  validateAuthenticationConfiguration,
  validateJWTAuthenticator,
  type AuthenticationValidationOptions,
} from './validation/authentication';
export {
  validateAuthorizationConfiguration,
  validateWebhookConfiguration,
  KUBE_APISERVER_AUTHORIZER_TYPES,
  type AuthorizationValidationOptions,
} from './validation/authorization';
export { validateEgressSelectorConfiguration, EGRESS_SELECTION_NAMES } from './validation/egress';
export { validateTracingConfiguration } from './validation/tracing';
export {
  decodeAuthenticationConfiguration,
  loadAuthenticationConfiguration,
  loadAuthenticationConfigurationFile,
} from './load/authentication';
export {
  decodeAuthorizationConfiguration,
  loadAuthorizationConfiguration,
  loadAuthorizationConfigurationFile,
  kubeApiserverAuthorizerErrors,
} from './load/authorization';
export {
  decodeEgressSelectorConfiguration,
  loadEgressSelectorConfiguration,
  loadEgressSelectorConfigurationFile,
} from './load/egress';
export { decodeTracingConfiguration, loadTracingConfiguration, loadTracingConfigurationFile } from './load/tracing';
export {
  decodeAdmissionConfiguration,
  loadAdmissionConfiguration,
  loadAdmissionConfigurationFile,
  admissionPluginConfiguration,
  type AdmissionLoadOptions,
} from './load/admission';
export { loadConfigFile, loadConfig, CONFIG_KINDS, type LoadedConfig, type LoadConfigOptions } from './load/any';
export { validateApiserverConfigFlags, type ApiserverConfigFlags } from './load/flags';
export { DecodeError } from './decode/document';
export { ConfigFileWatcher, type ConfigFileWatcherOptions } from './load/watch';
export { yamlToJson, YamlSyntaxError } from './decode/yaml-to-json';
