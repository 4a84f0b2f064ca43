// A pod's imagePullSecrets as registry credentials (upstream's credentialprovider/secrets MakeDockerKeyring):
// `kubernetes.io/dockerconfigjson` secrets give their `.dockerconfigjson` `auths` map, `kubernetes.io/dockercfg`
// secrets their `.dockercfg` map; other secrets, or an empty key, add nothing. All the pod's maps form one
// keyring (matched as the plugins' maps are, most specific key first), tried before the default keyring.
import type { AuthConfig } from '@cl/cri';
import { credentialsFor, type ImageCredentials } from './keyring';
import { repositoryOf } from './match-images';
import type { RegistryAuth } from './plugin';

/** The fields of a v1 Secret the keyring reads; `data` values are base64, as the API serves them. */
export interface PullSecret { type?: string; data?: Record<string, string> }

export const DOCKER_CONFIG_JSON_TYPE = 'kubernetes.io/dockerconfigjson';
export const DOCKERCFG_TYPE = 'kubernetes.io/dockercfg';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * One registry entry (upstream DockerConfigEntry.UnmarshalJSON): a non-empty `auth`, base64 of
 * `user:pass`, replaces `username` and `password`; throws upstream's words when it does not split in two.
 */
export function decodeRegistryEntry(entry: unknown): { username: string; password: string } {
  const e = isObject(entry) ? entry : {};
  const username = typeof e.username === 'string' ? e.username : '';
  const password = typeof e.password === 'string' ? e.password : '';
  const auth = typeof e.auth === 'string' ? e.auth : '';
  if (auth === '') return { username, password };
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(auth) || auth.length % 4 !== 0) throw new Error('illegal base64 data in auth field');
  const text = Buffer.from(auth, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw new Error('unable to parse auth field, must be formatted as base64(username:password)');
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** Base64 of `data[key]` as JSON; undefined when the key is absent or empty (upstream skips such a secret). */
function dataJson(secret: PullSecret, key: string): unknown {
  const b64 = secret.data?.[key];
  if (b64 === undefined || b64 === '') return undefined;
  const text = Buffer.from(b64, 'base64').toString('utf8');
  if (text === '') return undefined;
  return JSON.parse(text);
}

function registryMap(value: unknown, what: string): RegistryAuth {
  if (!isObject(value)) throw new Error(`${what} is not a JSON object`);
  const out: RegistryAuth = {};
  for (const [registry, entry] of Object.entries(value)) out[registry] = decodeRegistryEntry(entry);
  return out;
}

/**
 * The registry map one secret contributes, or null when it is of another type or lacks its key.
 * Throws when the JSON (or an `auth` field) does not decode: upstream then fails the pull with that error.
 */
export function registryAuthFromSecret(secret: PullSecret): RegistryAuth | null {
  if (secret.type === DOCKER_CONFIG_JSON_TYPE) {
    const json = dataJson(secret, '.dockerconfigjson');
    if (json === undefined) return null;
    if (!isObject(json)) throw new Error('.dockerconfigjson is not a JSON object');
    return json.auths === undefined || json.auths === null ? {} : registryMap(json.auths, '.dockerconfigjson auths');
  }
  if (secret.type === DOCKERCFG_TYPE) {
    const json = dataJson(secret, '.dockercfg');
    return json === undefined ? null : registryMap(json, '.dockercfg');
  }
  return null;
}

/**
 * The credentials a pull of `image` tries, in order (upstream's UnionDockerKeyring of the secrets' keyring
 * and the default one): every matching credential of the pod's secrets, then the default keyring's.
 */
export async function pullCredentials(secrets: PullSecret[], image: string, fallback?: ImageCredentials): Promise<AuthConfig[]> {
  const auths = secrets.map(registryAuthFromSecret).filter((a): a is RegistryAuth => a !== null);
  const fromSecrets = auths.length > 0 ? credentialsFor(auths, repositoryOf(image)) : [];
  const fromDefault = fallback ? await fallback.lookup(image) : [];
  return [...fromSecrets, ...fromDefault];
}
