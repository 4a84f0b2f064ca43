// Keeps the chain in step with the --authorization-config file (kube pkg/kubeapiserver/authorizer/reload.go):
// watched and polled every minute; unchanged bytes or an equal configuration do nothing; a file that fails to
// read, load, validate or build keeps the current chain and counts a failure; a good one is swapped in
// atomically (new webhooks, so empty caches) and counts a success.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Attributes, MaybePromise } from '@cl/auth';
import { ConfigFileWatcher, loadAuthorizationConfiguration, type AuthorizationConfiguration } from '@cl/config';
import { AuthorizerChain, SUPPORTED_AUTHORIZER_TYPES, type AuthorizerChainOptions } from './chain';
import { authorizationMetrics } from './metrics';
import type { AuthorizationResult, AuthorizeOptions, ChainAuthorizer, Logger } from './types';

export interface ReloadingAuthorizerOptions extends AuthorizerChainOptions {
  file: string;
  /** Poll interval besides the file watch (upstream: 1 minute). */
  pollMs?: number;
  /** Labels the reload metrics (`apiserver_id_hash`). */
  apiServerId?: string;
  /** Decode + validate; defaults to @cl/config with this library's authorizer types. */
  load?: (text: string) => AuthorizationConfiguration;
  /** How long a replaced chain keeps its connections for requests still using it. */
  retireAfterMs?: number;
}

/** `sha256:<hex>` of the server identity, or "" without one. */
export function apiServerIdHash(id: string): string {
  return id ? `sha256:${createHash('sha256').update(id).digest('hex')}` : '';
}

/** JSON with sorted keys, so two decodings of the same configuration compare equal. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const defaultLoad = (text: string) => loadAuthorizationConfiguration(text, { knownTypes: SUPPORTED_AUTHORIZER_TYPES });

export class ReloadingAuthorizer implements ChainAuthorizer {
  private chain: AuthorizerChain;
  private lastBytes: string;
  private lastConfig: string;
  private readonly requiredTypes: Set<string>;
  private readonly idHash: string;
  private readonly log: Logger;
  private readonly watcher: ConfigFileWatcher;
  private readonly retiring = new Set<{ timer: NodeJS.Timeout; chain: AuthorizerChain }>();
  private closed = false;
  private readonly reloads = authorizationMetrics.reloads();
  private readonly reloadTimestamp = authorizationMetrics.reloadTimestamp();

  /** Loads and builds the initial chain from `initialText` (the content already validated at start-up). */
  constructor(
    private readonly opts: ReloadingAuthorizerOptions,
    initialText: string,
  ) {
    this.log = opts.log ?? ((m) => process.stderr.write(`${m}\n`));
    this.idHash = apiServerIdHash(opts.apiServerId ?? '');
    const config = (opts.load ?? defaultLoad)(initialText);
    this.chain = AuthorizerChain.fromConfig(config, opts);
    this.lastBytes = initialText;
    this.lastConfig = canonical(config);
    this.requiredTypes = new Set(config.authorizers.filter((a) => a.type !== 'Webhook').map((a) => a.type));
    this.watcher = new ConfigFileWatcher(opts.file, () => this.checkOnce(), { pollMs: opts.pollMs, log: this.log, what: 'authorization config' });
  }

  /** The chain in force now. */
  get current(): AuthorizerChain {
    return this.chain;
  }

  authorize(attrs: Attributes, opts?: AuthorizeOptions): MaybePromise<AuthorizationResult> {
    return this.chain.authorize(attrs, opts);
  }

  /** Starts watching and polling; records the initial success and checks once right away, as upstream. */
  start(): void {
    this.record('success');
    this.watcher.start();
  }

  /** Runs one reload check after any running one; resolves when it is done. */
  check(): Promise<void> {
    return this.watcher.check();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher.close();
    await this.watcher.idle();
    for (const r of this.retiring) {
      clearTimeout(r.timer);
      r.chain.close();
    }
    this.retiring.clear();
    this.chain.close();
  }

  private record(status: 'success' | 'failure'): void {
    const labels = { status, apiserver_id_hash: this.idHash };
    this.reloads.inc(labels);
    this.reloadTimestamp.set(labels, Date.now() / 1000);
  }

  private async checkOnce(): Promise<void> {
    if (this.closed) return;
    let text: string;
    try {
      text = await readFile(this.opts.file, 'utf8');
    } catch (e) {
      this.log(`error reading authorization config file ${this.opts.file}: ${(e as Error).message}`);
      return this.record('failure');
    }
    if (text === this.lastBytes) return;
    this.lastBytes = text;
    let config: AuthorizationConfiguration;
    try {
      config = (this.opts.load ?? defaultLoad)(text);
      const missing = [...this.requiredTypes].filter((t) => !config.authorizers.some((a) => a.type === t)).sort();
      if (missing.length > 0) throw new Error(`missing required types: [${missing.join(' ')}]`);
    } catch (e) {
      this.log(`error loading authorization config file ${this.opts.file}, keeping the current authorizers: ${(e as Error).message}`);
      return this.record('failure');
    }
    const key = canonical(config);
    if (key === this.lastConfig) return;
    let next: AuthorizerChain;
    try {
      next = AuthorizerChain.fromConfig(config, this.opts);
    } catch (e) {
      this.log(`error building authorizers from ${this.opts.file}, keeping the current authorizers: ${(e as Error).message}`);
      return this.record('failure');
    }
    if (this.closed) return next.close();
    const old = this.chain;
    this.chain = next;
    this.lastConfig = key;
    const entry = { chain: old, timer: setTimeout(() => (old.close(), this.retiring.delete(entry)), this.opts.retireAfterMs ?? 60_000) };
    entry.timer.unref();
    this.retiring.add(entry);
    this.log(`reloaded authorization configuration from ${this.opts.file}`);
    this.record('success');
  }
}
