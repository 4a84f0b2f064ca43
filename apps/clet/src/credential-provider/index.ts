// Image credential provider plugins (--image-credential-provider-config, --image-credential-provider-bin-dir).
export { CredentialProviders, credentialProvidersAtStart, credentialProvidersFromFlags, credentialsFor, keyringKey, type ImageCredentials } from './keyring';
export { loadCredentialProviderPlugins, validateProviders, type CredentialProvider } from './config';
export { PluginProvider, cacheKeyFor, cacheLookupKeys, type RegistryAuth } from './plugin';
export { urlsMatch, parseSchemelessURL, repositoryOf, registryOf } from './match-images';
export { decodeRegistryEntry, pullCredentials, registryAuthFromSecret, DOCKER_CONFIG_JSON_TYPE, DOCKERCFG_TYPE, type PullSecret } from './pull-secrets';
