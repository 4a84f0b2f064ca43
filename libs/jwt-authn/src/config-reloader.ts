// Re-reads the --authentication-config file when it changes (pkg/kubeapiserver/options/authentication.go
// and authenticator/config.go): a valid file whose new authenticators become healthy replaces the old
// set atomically; anything else is logged and the old set stays. Reload results are counted as upstream.
import { readFile } from 'node:fs/promises';
import type { AuthResponse, MaybeSyncTokenAuthenticator } from '@cl/auth';
import { ConfigFileWatcher, type AuthenticationConfiguration } from '@cl/config';
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
  private readonly watcher: ConfigFileWatcher;
  private closed = false;
  private readonly retiring = new Map<NodeJS.Timeout, JwtAuthenticators>();

  constructor(private readonly opts: ConfigReloaderOptions) {
    this.log = opts.log ?? defaultLogger;
    this.idHash = sha256Label(opts.apiServerId ?? '');
    this.tracked = opts.initialContent;
    this.authnOpts = { log: this.log, ...opts.authenticatorOptions };
    this.current = JwtAuthenticators.fromConfig(opts.initialConfig, this.authnOpts);
    this.watcher = new ConfigFileWatcher(opts.file, () => this.check(), { pollMs: opts.pollMs, log: this.log, what: 'authentication config' });
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
    this.watcher.start();
  }

  /** Runs one reload check, serialised with any other; resolves when it is done. */
  trigger(): Promise<void> {
    return this.watcher.check();
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
    this.watcher.close();
    for (const [t, old] of this.retiring) {
      clearTimeout(t);
      old.close();
    }
    this.retiring.clear();
    this.current.close();
  }
}
