// GET, PUT and PATCH of a view subresource (deployments/scale, pods/ephemeralcontainers): the object shown as its
// view; a PUT body or a patched view decoded as the view's kind, turned back into the object by the view, and
// written through the store's normal update (admission, preconditions, conflicts), answered as the new view.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiErrors, type KubeObject } from '@cl/apimachinery';
import type { ResourceStore } from '../resource-store';
import type { SubresourceView } from '../strategy';
import { merge } from '@cl/field-manager';
import { mediaType, responseForm } from './negotiation';
import { APPLY_PATCH_TYPE, applyConfiguration, parseApplyBody, parseForce, writeManager } from './write-manager';
import { bodyFormat, decodeBody, fieldValidation, OBJECT_TYPES, type BodyFormat, readBodyOf, readPatch, respondObject, setWarnings } from './request-body';

/** A view subresource of one object, as a request names it. */
export interface ViewTarget {
  store: ResourceStore;
  view: SubresourceView;
  subresource: string;
  namespace: string;
  name: string;
}

export interface ViewRequest {
  verb: string;
  query: URLSearchParams;
  dryRun: boolean;
  user: unknown;
  readBody: (req: IncomingMessage) => Promise<Buffer>;
}

export async function serveView(req: IncomingMessage, res: ServerResponse, target: ViewTarget, r: ViewRequest): Promise<void> {
  const { store, view, namespace, name, subresource } = target;
  if (!['get', 'update', 'patch'].includes(r.verb)) throw apiErrors.methodNotSupported(store.gr, r.verb);
  responseForm(req); // refuse an unacceptable Accept before reading or writing
  if (r.verb === 'get') return respondView(req, res, target, await store.get(namespace, name), r.query);
  const fv = fieldValidation(r.query);
  const warnings: string[] = [];
  const decoded = (body: Buffer | string, format: BodyFormat = 'json') => {
    const { object, warnings: w } = decodeBody(view.def, body, fv, format);
    warnings.splice(0, warnings.length, ...w);
    checkIdentity(object, target);
    return object;
  };
  let apply: (current: KubeObject) => KubeObject;
  let applied = false;
  const isApply = r.verb === 'patch' && mediaType(req) === APPLY_PATCH_TYPE;
  const fieldManager = writeManager(req, r.query, r.verb === 'update' ? 'UpdateOptions' : 'PatchOptions', isApply);
  if (r.verb === 'update') {
    const written = decoded(await readBodyOf(req, OBJECT_TYPES, r.readBody), bodyFormat(req));
    apply = (current) => view.apply(written, current);
  } else if (isApply) {
    const force = parseForce(r.query);
    const config = parseApplyBody(view.def, await r.readBody(req));
    const fm = store.fieldManager;
    // A Scale's spec.replicas is the workload's: applied as the workload's own field, through the subresource,
    // so it is owned (and conflicts) as upstream's converted scale entries are.
    applied = !!fm && view.def.kind === 'Scale';
    apply = (current) => {
      const written = decoded(JSON.stringify(merge(view.def.schema, view.get(current), config)));
      if (!applied) return view.apply(written, current);
      const replicas = (config.spec as { replicas?: unknown } | undefined)?.replicas;
      const workloadConfig = { apiVersion: current.apiVersion, kind: current.kind, metadata: { name }, ...(replicas !== undefined ? { spec: { replicas } } : {}) };
      return view.apply(written, applyConfiguration(fm!, current, workloadConfig, fieldManager, subresource, force));
    };
  } else {
    const patch = await readPatch(req, r.readBody);
    apply = (current) => view.apply(decoded(JSON.stringify(patch.apply(view.get(current), view.def, fv))), current);
  }
  const { object } = await store.update(namespace, name, (current) => apply(current!), { dryRun: r.dryRun, user: r.user, subresource, allowCreate: false, fieldManager, applied });
  setWarnings(res, warnings);
  respondView(req, res, target, object, r.query);
}

/** A view of an object in the view's kind, or its Table (the view's columns, else the resource's). */
function respondView(req: IncomingMessage, res: ServerResponse, target: ViewTarget, object: KubeObject, q: URLSearchParams) {
  respondObject(req, res, { table: target.view.table ?? target.store.strategy.table }, 200, target.view.get(object), q);
}

/** A view written to an object must name that object (upstream's checkName of updates). */
function checkIdentity(view: KubeObject, target: ViewTarget) {
  const meta = view.metadata ?? {};
  if (meta.name && meta.name !== target.name) throw apiErrors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${target.name})`);
  if (target.store.def.namespaced && meta.namespace && meta.namespace !== target.namespace) {
    throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}
