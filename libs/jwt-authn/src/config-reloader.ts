// Re-reads the --authentication-config file when it changes (pkg/kubeapiserver/options/authentication.go
// and authenticator/config.go): a valid file whose new authenticators become healthy replaces the old
// set atomically; anything else is logged and the old set stays. Reload results are counted as upstream.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { AuthResponse, MaybeSyncTokenAuthenticator } from '@cl/auth';
import type { AuthenticationConfiguration } from '@cl/config';
import { defaultLogger, type JwtAuthenticatorOptions, type Logger } from './jwt-authenticator';
import { JwtAuthenticators } from './jwt-authenticators';
import { reloadLastTimestamp, reloadsTotal, sha256Label } from './metrics';

export interface ConfigReloaderOptions {
  file: string;
  /** The file content the server started with, and its decoded, validated configuration. */
  initialContent: string;
  initialConfig: AuthenticationConfiguration;
  /** Strict decode + validation; throws with the message to log. */
  load: (content: string) => AuthenticationConfiguration;
  authenticatorOptions?: JwtAuthenticatorOptions;
  apiServerId?: string;
  log?: Logger;
  /** Poll interval besides the file watch (upstream: 1 min). */
  pollMs?: number;
  /** How long new authenticators may take to become healthy (upstream: 1 min). */
  updateTimeoutMs?: number;
  healthPollMs?: number;
  /** How long the replaced set keeps running for requests already using it (upstream: 1 min). */
  retireAfterMs?: number;
}

export class ReloadingJwtAuthenticator implements MaybeSyncTokenAuthenticator {
  private current: JwtAuthenticators;
  private tracked: string;
  private readonly log: Logger;
  private readonly idHash: string;
  private readonly authnOpts: JwtAuthenticatorOptions;
  private watcher: FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly retiring = new Map<NodeJS.Timeout, JwtAuthenticators>();

  constructor(private readonly opts: ConfigReloaderOptions) {
    this.log = opts.log ?? defaultLogger;
    this.idHash = sha256Label(opts.apiServerId ?? '');
    this.tracked = opts.initialContent;
    this.authnOpts = { log: this.log, ...opts.authenticatorOptions };
    this.current = JwtAuthenticators.fromConfig(opts.initialConfig, this.authnOpts);
    reloadsTotal();
    reloadLastTimestamp();
  }

  /** The authenticators in force now. */
  get active(): JwtAuthenticators {
    return this.current;
  }

  authenticateToken(token: string): Promise<AuthResponse | null> {
    return this.current.authenticateToken(token);
  }

  authenticateTokenMaybeSync(token: string): AuthResponse | null | Promise<AuthResponse | null> {
    return this.current.authenticateTokenMaybeSync(token);
  }

  /** Starts watching the file (and polling it); runs one check right away, like upstream. */
  start(): void {
    try {
      // Watch the directory: editors and `kubectl create configmap` style updates replace the file.
      const name = basename(this.opts.file);
      this.watcher = watch(dirname(this.opts.file), (_ev, f) => {
        if (!f || f === name || f.startsWith('..')) this.trigger();
      });
      this.watcher.on('error', (e) => this.log(`watching authentication config file: ${e.message}`));
    } catch (e) {
      this.log(`watching authentication config file: ${(e as Error).message}`);
    }
    this.poll = setInterval(() => this.trigger(), this.opts.pollMs ?? 60_000);
    this.poll.unref();
    this.trigger();
  }

  /** Runs one reload check, serialised with any other; resolves when it is done. */
  trigger(): Promise<void> {
    this.chain = this.chain.then(() => this.check()).catch((e: Error) => this.log(`authentication config reload: ${e.message}`));
    return this.chain;
  }

  private record(status: 'success' | 'failure'): void {
    reloadsTotal().inc({ status, apiserver_id_hash: this.idHash });
    reloadLastTimestamp().set({ status, apiserver_id_hash: this.idHash }, Date.now() / 1000);
  }

  private async check(): Promise<void> {
    if (this.closed) return;
    let content: string;
    try {
      content = await readFile(this.opts.file, 'utf8');
    } catch (e) {
      this.log(`failed to read authentication config file: ${(e as Error).message}`);
      this.record('failure');
      return; // retried at the next event or poll
    }
    if (content === this.tracked) return;
    let cfg: AuthenticationConfiguration;
    try {
      cfg = this.opts.load(content);
    } catch (e) {
      this.log(`failed to load authentication config: ${(e as Error).message}`);
      this.record('failure');
      this.tracked = content;
      return;
    }
    if (JSON.stringify(cfg.anonymous ?? null) !== JSON.stringify(this.opts.initialConfig.anonymous ?? null)) {
      this.log('failed to validate authentication config: anonymous: Forbidden: changed from initial configuration file');
      this.record('failure');
      this.tracked = content;
      return;
    }
    let next: JwtAuthenticators;
    try {
      next = JwtAuthenticators.fromConfig(cfg, this.authnOpts);
    } catch (e) {
      this.log(`failed to update authentication config: ${(e as Error).message}`);
      this.record('failure');
      return;
    }
    try {
      await next.waitUntilHealthy(this.opts.updateTimeoutMs ?? 60_000, this.opts.healthPollMs ?? 10_000);
    } catch (e) {
      next.close();
      this.log(`failed to update authentication config: ${(e as Error).message}`);
      this.record('failure');
      return; // not tracked: retried at the next event or poll
    }
    if (this.closed) {
      next.close();
      return;
    }
    const old = this.current;
    this.current = next;
    const t = setTimeout(() => {
      this.retiring.delete(t);
      old.close();
    }, this.opts.retireAfterMs ?? 60_000);
    t.unref();
    this.retiring.set(t, old);
    this.tracked = content;
    this.log('reloaded authentication config');
    this.record('success');
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.poll) clearInterval(this.poll);
    for (const [t, old] of this.retiring) {
      clearTimeout(t);
      old.close();
    }
    this.retiring.clear();
    this.current.close();
  }
}
