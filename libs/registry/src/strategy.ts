// What differs between kinds in the generic store, as kube-apiserver's registry strategies: defaults the server
// sets on create and update, validation as field errors, which part of the object each write may change (the
// main resource or its status), the subresources that show the object as another object (scale), the fields a
// field selector can name, how a delete proceeds, and the Table columns kubectl prints.
import type { KindDefinition } from '@cl/api';
import type { DeleteOptions, FieldError, KubeObject, NameValidator, Status, TableColumnDefinition } from '@cl/apimachinery';

/** What a POST subresource may do to its object (the generic store's operations, bound to the object). */
export interface ActionContext {
  namespace: string;
  name: string;
  /** The request body, parsed JSON. */
  body: unknown;
  dryRun: boolean;
  user?: unknown;
  update(apply: (current: KubeObject) => KubeObject, subresource: string): Promise<KubeObject>;
  delete(options: DeleteOptions): Promise<{ object: KubeObject; deleted: boolean }>;
}

/** A POST to `<resource>/<name>/<subresource>` (a pod's binding, eviction); answers with an object or a Status and its code. */
export type SubresourceAction = (ctx: ActionContext) => Promise<{ code: number; body: KubeObject | Status }>;

export interface TableConvertor<T extends KubeObject = KubeObject> {
  /** Columns after NAME (which tables start with); priority 1 columns show with `-o wide`. */
  columns: TableColumnDefinition[];
  /** The cells after the name, in column order. */
  cells(object: T, now: number): unknown[];
  /** The columns are the whole table, NAME included where the kind puts it (events print it last). */
  ownColumns?: boolean;
}

/**
 * A subresource that shows the object as another object and writes it back through it (upstream's ScaleREST,
 * EphemeralContainersREST): GET answers `get(object)`; PUT and PATCH (applied to that view) give a new view, and
 * `apply` turns it into the object to store, which is then an update of the object like any other (admission,
 * resourceVersion preconditions and conflicts, one new revision), answered again as its view.
 */
export interface SubresourceView<T extends KubeObject = KubeObject> {
  /** The kind of the view: what PUT bodies and patched views decode as, and discovery and OpenAPI name (autoscaling/v1 Scale). */
  def: KindDefinition;
  /** The view of a stored object (which carries its resourceVersion). */
  get(object: T): KubeObject;
  /**
   * The object to store from a written view and the current object (a copy, free to change). Throws an ApiError for
   * a view that is wrong in itself (a Scale with negative replicas: 422 for the view's kind). A resourceVersion (or
   * uid) it carries over from the view into the object is the update's precondition, as on any update.
   */
  apply(view: KubeObject, current: T): T;
  /**
   * Checks of the new object in place of the resource's validateUpdate (ephemeralcontainers: only additions of
   * ephemeral containers). The resource's prepareForUpdate runs either way: a view's write is an update of the
   * object (a scale bumps the generation and, without this, is validated as a deployment).
   */
  validateUpdate?(object: T, old: T): FieldError[];
  /** Table columns of the view (`kubectl get --subresource=scale`); the resource's own when absent. */
  table?: TableConvertor;
}

export interface Strategy<T extends KubeObject = KubeObject> {
  /** How names of this kind are checked; DNS subdomains when absent (upstream's default). */
  nameValidator?: NameValidator;
  /** Server-set fields on create (phase, defaults that depend on other fields); status is reset here when the kind has a status subresource. */
  prepareForCreate?(object: T): void;
  /** Carries over what a write of the main resource may not change (status for kinds with a status subresource). */
  prepareForUpdate?(object: T, old: T): void;
  /** For `<resource>/status` writes: what of the new object to keep (by default status only). */
  prepareForStatusUpdate?(object: T, old: T): void;
  validate?(object: T): FieldError[];
  validateUpdate?(object: T, old: T): FieldError[];
  validateStatusUpdate?(object: T, old: T): FieldError[];
  /** Field labels a field selector may name beyond metadata.name and metadata.namespace, each with its value getter. */
  fields?: Record<string, (object: T) => string | undefined>;
  /**
   * One of `fields` the watch cache indexes its watchers by (upstream's trigger function; pods: spec.nodeName): a
   * watch whose field selector requires it to equal a value is offered only the changes of objects with that value.
   */
  watchIndexField?: string;
  /** Whether a PUT of a missing object creates it (upstream's AllowCreateOnUpdate). */
  allowCreateOnUpdate?: boolean;
  /**
   * Whether a PUT without a resourceVersion (or "0") overwrites the current state (upstream's
   * AllowUnconditionalUpdate); true when absent, as every built-in kind upstream. false: such a PUT is a 422.
   */
  allowUnconditionalUpdate?: boolean;
  /** Objects of this kind expire (events: `--event-ttl`); seconds, or undefined to keep them. */
  ttlSeconds?(object: T): number | undefined;
  /**
   * A delete that the kind turns into a state change instead of a removal (a namespace becomes Terminating while
   * its contents go). Returns true when it changed `object` and the object must stay.
   */
  beforeDelete?(object: T): boolean;
  /**
   * Graceful deletion (pods): the seconds this delete leaves the object to terminate, 0 to delete it now
   * (upstream's CheckGracefulDelete).
   */
  gracePeriod?(object: T, options: DeleteOptions): number;
  /** POST subresources that act on the object (a pod's `binding` and `eviction`), by name. */
  actions?: Record<string, SubresourceAction>;
  /** Subresources served as a view of the object (`scale`, a pod's `ephemeralcontainers`), by name. */
  views?: Record<string, SubresourceView<T>>;
  /** Whether DELETE answers with the object (pods, namespaces) or a Status (most kinds). */
  returnDeletedObject?: boolean;
  table?: TableConvertor<T>;
}

/** The default strategy for kinds without a status subresource: the whole object is the user's. */
export const plainStrategy: Strategy = {};

/** For kinds with a status subresource: the main resource leaves status alone and `/status` leaves the rest. */
export function withStatusSubresource(strategy: Strategy = {}): Strategy {
  return {
    ...strategy,
    prepareForCreate(object) {
      strategy.prepareForCreate?.(object);
    },
    prepareForUpdate(object, old) {
      if (old.status === undefined) delete object.status;
      else object.status = old.status;
      strategy.prepareForUpdate?.(object, old);
    },
    prepareForStatusUpdate(object, old) {
      const status = object.status;
      for (const k of Object.keys(object)) if (k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') delete object[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'metadata' && k !== 'status') object[k] = v;
      if (status !== undefined) object.status = status;
      // Metadata is the main resource's too, except what status writers legitimately touch upstream (none here).
      object.metadata = { ...old.metadata, resourceVersion: object.metadata?.resourceVersion };
      strategy.prepareForStatusUpdate?.(object, old);
    },
  };
}
