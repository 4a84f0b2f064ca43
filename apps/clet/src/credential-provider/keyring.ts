// The credentials a pull tries, in order: every matching plugin's auth map, its keys normalised as
// upstream's BasicDockerKeyring (scheme dropped, /v1/ and /v2/ prefixes dropped) and matched against the
// image's repository, most specific key first.
import type { AuthConfig } from '@cl/cri';
import { loadCredentialProviderPlugins } from './config';
import { repositoryOf, urlsMatch } from './match-images';
import { PluginProvider, type RegistryAuth } from './plugin';
import type { LogFn } from '../log';

const DEFAULT_REGISTRY_KEY = 'index.docker.io';

/** A keyring key for one auth-map entry; null when it does not parse. */
export function keyringKey(location: string): string | null {
  const value = /^https?:\/\//.test(location) ? location : `https://${location}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  // WHATWG URL lower-cases and percent-encodes; take host and path from the text itself.
  const rest = value.replace(/^https?:\/\//, '');
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  let path = slash < 0 ? '' : rest.slice(slash).replace(/[?#].*$/, '');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (path.startsWith('/v2/') || path.startsWith('/v1/')) path = path.slice(3);
  return path !== '' && path !== '/' ? host + path : host;
}

/** The credentials for `repository` from the providers' merged auth maps. */
export function credentialsFor(auths: RegistryAuth[], repository: string): AuthConfig[] {
  const byKey = new Map<string, AuthConfig[]>();
  for (const auth of auths) {
    for (const [location, a] of Object.entries(auth)) {
      const key = keyringKey(location);
      if (key === null) continue;
      byKey.set(key, [...(byKey.get(key) ?? []), { username: a.username, password: a.password }]);
    }
  }
  const keys = [...byKey.keys()].sort().reverse();
  const found = keys.filter((k) => urlsMatch(k, repository)).flatMap((k) => byKey.get(k) ?? []);
  // As upstream: Docker Hub images fall back to credentials for its index (`index.docker.io/v1/`).
  if (found.length === 0 && /^(index\.)?docker\.io\//.test(repository)) return byKey.get(DEFAULT_REGISTRY_KEY) ?? [];
  return found;
}

export interface ImageCredentials {
  /** The credentials to try for an image, in order; empty for an anonymous pull. */
  lookup(image: string): Promise<AuthConfig[]>;
}

export class CredentialProviders implements ImageCredentials {
  constructor(private readonly plugins: PluginProvider[]) {}

  async lookup(image: string): Promise<AuthConfig[]> {
    const repository = repositoryOf(image);
    const auths = await Promise.all(this.plugins.map((p) => p.provide(repository)));
    return credentialsFor(auths, repository);
  }
}

/**
 * The agent's plugins from its two flags; null when neither is set. Throws upstream's error (refused at
 * start with the other start-up errors).
 */
export function credentialProvidersFromFlags(configPath: string, binDir: string, log: LogFn): CredentialProviders | null {
  if (configPath === '' && binDir === '') return null;
  const { providers, binaries } = loadCredentialProviderPlugins(configPath, binDir);
  return new CredentialProviders(providers.map((p) => new PluginProvider(p, binaries.get(p.name) ?? '', log)));
}

/**
 * At start: the plugins, or the error upstream exits with ("Failed to register CRI auth plugins"), which
 * joins the other start-up refusals so that all are reported at once.
 */
export function credentialProvidersAtStart(configPath: string, binDir: string, log: LogFn): { providers: CredentialProviders | null; errors: string[] } {
  try {
    return { providers: credentialProvidersFromFlags(configPath, binDir, log), errors: [] };
  } catch (e) {
    return { providers: null, errors: [`Failed to register CRI auth plugins: ${(e as Error).message}`] };
  }
}
