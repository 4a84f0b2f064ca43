// The authorizers that read the store (RBAC, Node) and what goes with them: the RBAC index fed from the watch
// caches, the cluster role aggregation controller, the escalation check on role and binding writes, and the
// rules for SelfSubjectRulesReview. Built before the store opens (the chain is assembled at start-up) and
// attached to the stores once they exist; until the index has synced, RBAC has no opinion.
import { admissionChain, type Admission, type ResourceStore } from '@cl/registry';
import type { Attributes, Decision, MaybePromise } from '@cl/auth';
import { RbacAuthorizer, RbacIndex } from '@cl/rbac';
import type { BuiltinAuthorizerFactory } from '@cl/webhook-authz';
import type { Logger } from '../logger';
import { rbacEscalationAdmission } from './escalation-admission';
import { NodeAuthorizer } from './node-authorizer';
import { feedRbacIndex, startClusterRoleAggregation, type RbacFeed } from './rbac-feed';

export class StoreAuthorizers {
  readonly index = new RbacIndex();
  readonly rbac: RbacAuthorizer;
  readonly node = new NodeAuthorizer();
  private feed: RbacFeed | undefined;
  private stopAggregation: (() => void) | undefined;

  /** `modes`: the authorizer types configured (only RBAC's presence turns on the escalation check). */
  constructor(
    readonly modes: readonly string[],
    private readonly log: Logger,
  ) {
    // Upstream logs the denial line at -v=5.
    this.rbac = new RbacAuthorizer(this.index, { onNoOpinion: (m) => log.v(5, m) });
  }

  get rbacEnabled(): boolean {
    return this.modes.includes('RBAC');
  }

  /** The factories @cl/webhook-authz's chain builds RBAC and Node entries with. */
  builtins(): Record<string, BuiltinAuthorizerFactory> {
    return {
      RBAC: () => ({ authorize: (a) => this.rbac.authorize(a) }),
      Node: () => ({ authorize: (a) => this.node.authorize(a) }),
    };
  }

  /** Starts following the stores; resolves once the RBAC index holds their current objects. */
  attach(stores: readonly ResourceStore[]): Promise<void> {
    const pods = stores.find((s) => s.def.group === '' && s.def.plural === 'pods');
    if (pods) this.node.attach(pods);
    if (!this.rbacEnabled) return Promise.resolve();
    const info = (l: string) => this.log.info(l);
    this.feed = feedRbacIndex(this.index, stores, info);
    const clusterRoles = stores.find((s) => s.def.group === 'rbac.authorization.k8s.io' && s.def.plural === 'clusterroles');
    if (clusterRoles) this.stopAggregation = startClusterRoleAggregation(this.index, clusterRoles, info);
    return this.feed.synced;
  }

  /** The admission of a store with the escalation check added for the RBAC resources (RBAC mode only). */
  storeAdmission(store: ResourceStore, chain: Admission, authorize: (a: Attributes) => MaybePromise<Decision>): Admission {
    if (!this.rbacEnabled || store.def.group !== 'rbac.authorization.k8s.io') return chain;
    const escalation = rbacEscalationAdmission({ authorize, resolver: this.rbac.resolver, source: this.index });
    const extra = admissionChain([escalation]);
    return {
      names: chain.names,
      mutate: (a) => chain.mutate(a),
      async validate(a) {
        await extra.validate(a);
        await chain.validate(a);
      },
    };
  }

  stop(): void {
    this.feed?.stop();
    this.stopAggregation?.();
  }
}
