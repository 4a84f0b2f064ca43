// One credential provider plugin: runs its executable with a CredentialProviderRequest on stdin, reads the
// CredentialProviderResponse on stdout, and caches the answer under the key the plugin chose (Image,
// Registry or Global) for the plugin's cacheDuration, or the provider's defaultCacheDuration without one.
import { spawn } from 'node:child_process';
import { parseDuration } from '@cl/flags';
import type { CredentialProvider } from './config';
import { registryOf, urlsMatch } from './match-images';
import { logLine, type LogFn } from '../log';

/** registry glob (or URL) → credentials, as the response's `auth` map. */
export type RegistryAuth = Record<string, { username: string; password: string }>;

const GLOBAL_KEY = 'global';
/** A plugin that hangs does not hold a pull forever. */
const EXEC_TIMEOUT_MS = 60_000;

export type CacheKeyType = 'Image' | 'Registry' | 'Global';

/** The cache key a response's cacheKeyType gives for `image`; null for an invalid type. */
export function cacheKeyFor(type: string, image: string): string | null {
  if (type === 'Image') return image;
  if (type === 'Registry') return registryOf(image);
  if (type === 'Global') return GLOBAL_KEY;
  return null;
}

/** The keys an image's cached answer may sit under, in the order upstream looks: image, registry, global. */
export const cacheLookupKeys = (image: string): string[] => [image, registryOf(image), GLOBAL_KEY];

export class PluginProvider {
  private readonly cache = new Map<string, { auth: RegistryAuth; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<RegistryAuth>>();

  constructor(
    readonly provider: CredentialProvider,
    private readonly binary: string,
    private readonly log: LogFn,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether one of the provider's matchImages matches the image. */
  matches(image: string): boolean {
    return this.provider.matchImages.some((m) => urlsMatch(m, image));
  }

  /** The plugin's credentials for the image (cached or fresh); empty when the plugin fails. */
  async provide(image: string): Promise<RegistryAuth> {
    if (!this.matches(image)) return {};
    const cached = this.cached(image);
    if (cached) return cached;
    // Pulls of one image at once share one plugin run (upstream's singleflight).
    let run = this.inflight.get(image);
    if (!run) {
      run = this.exec(image).finally(() => this.inflight.delete(image));
      this.inflight.set(image, run);
    }
    return run;
  }

  private cached(image: string): RegistryAuth | null {
    const now = this.now();
    for (const key of cacheLookupKeys(image)) {
      const hit = this.cache.get(key);
      if (!hit) continue;
      if (hit.expiresAt > now) return hit.auth;
      this.cache.delete(key);
    }
    return null;
  }

  /** A failed run: logged, and the pull goes on without this plugin's credentials (as upstream). */
  private fail(err: string): void {
    this.log(logLine('Failed getting credential from external registry credential provider', { plugin: this.provider.name }, { severity: 'E', err }));
  }

  private async exec(image: string): Promise<RegistryAuth> {
    let out: string;
    try {
      out = await this.run(JSON.stringify({ apiVersion: this.provider.apiVersion, kind: 'CredentialProviderRequest', image }));
    } catch (e) {
      this.fail((e as Error).message);
      return {};
    }
    let res: { apiVersion?: string; kind?: string; cacheKeyType?: string; cacheDuration?: string | null; auth?: Record<string, { username?: string; password?: string }> };
    try {
      res = JSON.parse(out);
    } catch (e) {
      this.fail(`error decoding response: ${(e as Error).message}`);
      return {};
    }
    if (res.kind !== 'CredentialProviderResponse') {
      this.fail(`kind was ${JSON.stringify(res.kind ?? '')}, expected CredentialProviderResponse`);
      return {};
    }
    if (res.apiVersion !== this.provider.apiVersion) {
      this.fail(`apiVersion from credential plugin response did not match expected apiVersion:${this.provider.apiVersion}, actual apiVersion:${res.apiVersion ?? ''}`);
      return {};
    }
    const key = cacheKeyFor(res.cacheKeyType ?? '', image);
    if (key === null) {
      this.fail(`credential provider plugin did not return a valid cacheKeyType: ${JSON.stringify(res.cacheKeyType ?? '')}`);
      return {};
    }
    const auth: RegistryAuth = {};
    for (const [registry, a] of Object.entries(res.auth ?? {})) auth[registry] = { username: a?.username ?? '', password: a?.password ?? '' };
    // A cacheDuration of 0 is "do not cache"; none means the provider's default (0 there also means no cache).
    let ttl: number;
    try {
      ttl = res.cacheDuration === undefined || res.cacheDuration === null ? this.provider.defaultCacheDurationMs ?? 0 : parseDuration(res.cacheDuration);
    } catch {
      ttl = 0;
    }
    if (ttl > 0) this.cache.set(key, { auth, expiresAt: this.now() + ttl });
    return auth;
  }

  private run(input: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const env = { ...process.env };
      for (const e of this.provider.env) env[e.name] = e.value;
      const child = spawn(this.binary, this.provider.args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: EXEC_TIMEOUT_MS });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', reject);
      child.stdin.on('error', () => undefined);
      child.on('close', (code, signal) => {
        if (code === 0) resolve(Buffer.concat(out).toString());
        else reject(new Error(`exit status ${code ?? signal}: ${Buffer.concat(err).toString().trim()}`));
      });
      child.stdin.end(input);
    });
  }
}
