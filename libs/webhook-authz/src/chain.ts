// An AuthorizationConfiguration turned into one authorizer: the optional built-in rules in front, then each
// configured authorizer in file order, instrumented, composed as a union.
import type { Attributes, MaybePromise } from '@cl/auth';
import type { AuthorizationConfiguration } from '@cl/config';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, instrumentedAuthorizer, unionAuthorizer } from './union';
import type { AuthorizationResult, AuthorizeOptions, ChainAuthorizer, Logger } from './types';
import type { AgentFactory, Backoff } from './webhook-client';
import { WebhookAuthorizer } from './webhook-authorizer';

/** The authorizer types this library builds. */
export const SUPPORTED_AUTHORIZER_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'Webhook'] as const;

/** Builds a built-in authorizer the caller provides (RBAC, Node) for one authorizer entry of the configuration. */
export type BuiltinAuthorizerFactory = (entry: { type: string; name: string }) => ChainAuthorizer;

export interface AuthorizerChainOptions {
  /**
   * Authorizer types beyond this library's own, by type (the API server's RBAC and Node authorizers, which read
   * its store): this library stays free of the registry.
   */
  builtins?: Readonly<Record<string, BuiltinAuthorizerFactory>>;
  /** Authorizers asked before the configured ones (e.g. a privileged-group rule); not counted in metrics. */
  prefix?: readonly ChainAuthorizer[];
  agentFactory?: AgentFactory;
  backoff?: Backoff;
  log?: Logger;
  /** Clock for the webhook caches (tests). */
  now?: () => number;
}

export class AuthorizerChain implements ChainAuthorizer {
  private readonly union: ChainAuthorizer;

  private constructor(
    readonly config: AuthorizationConfiguration,
    private readonly webhooks: WebhookAuthorizer[],
    members: ChainAuthorizer[],
  ) {
    this.union = unionAuthorizer(members);
  }

  /** Builds from an already validated configuration; throws when a webhook's kubeconfig cannot be used. */
  static fromConfig(config: AuthorizationConfiguration, opts: AuthorizerChainOptions = {}): AuthorizerChain {
    const webhooks: WebhookAuthorizer[] = [];
    const members: ChainAuthorizer[] = [...(opts.prefix ?? [])];
    let current = '';
    try {
      for (const a of config.authorizers) {
        current = a.name;
        let inner: ChainAuthorizer;
        switch (a.type) {
          case 'AlwaysAllow':
            inner = alwaysAllowAuthorizer;
            break;
          case 'AlwaysDeny':
            inner = alwaysDenyAuthorizer;
            break;
          case 'Webhook': {
            if (!a.webhook) throw new Error(`authorizer ${JSON.stringify(a.name)}: webhook configuration is required`);
            const w = new WebhookAuthorizer({ name: a.name, webhook: a.webhook, agentFactory: opts.agentFactory, backoff: opts.backoff, log: opts.log, now: opts.now });
            webhooks.push(w);
            inner = w;
            break;
          }
          default: {
            const builtin = opts.builtins?.[a.type];
            if (!builtin) throw new Error(`unknown authorization mode ${JSON.stringify(a.type)} specified`);
            inner = builtin({ type: a.type, name: a.name });
          }
        }
        members.push(instrumentedAuthorizer(a.type, a.name, inner));
      }
    } catch (e) {
      for (const w of webhooks) w.close();
      throw new Error(`error creating authorizer ${JSON.stringify(current)}: ${(e as Error).message}`, { cause: e });
    }
    return new AuthorizerChain(config, webhooks, members);
  }

  authorize(attrs: Attributes, opts?: AuthorizeOptions): MaybePromise<AuthorizationResult> {
    return this.union.authorize(attrs, opts);
  }

  /** Releases webhook connections. */
  close(): void {
    for (const w of this.webhooks) w.close();
  }
}
