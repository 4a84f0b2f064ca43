// Namespaces: created Active with the `kubernetes` finalizer and the kubernetes.io/metadata.name label; a
// delete turns one Terminating (the namespace controller then empties it, clears the finalizer through
// /finalize and deletes it again, which removes it).
import { NAMESPACE_FINALIZER } from '@cl/api';
import { FieldPath, validateFinalizerName, validateNamespaceName, type KubeObject } from '@cl/apimachinery';
import type { Strategy } from '../strategy';
import { withStatusSubresource } from '../strategy';
import { AGE, ageOf, column } from './columns';

export { NAMESPACE_FINALIZER };
const NAME_LABEL = 'kubernetes.io/metadata.name';

interface NamespaceFields {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

const fields = (o: KubeObject) => o as KubeObject & NamespaceFields;

export const namespaceStrategy: Strategy = withStatusSubresource({
  prepareForCreate(o) {
    const ns = fields(o);
    ns.spec = { ...ns.spec, finalizers: [NAMESPACE_FINALIZER] };
    ns.status = { phase: 'Active' };
    o.metadata!.labels = { ...o.metadata!.labels, [NAME_LABEL]: o.metadata!.name! };
  },
  prepareForUpdate(o, old) {
    // spec.finalizers changes only through /finalize.
    fields(o).spec = { ...fields(o).spec, finalizers: fields(old).spec?.finalizers ?? [] };
    o.metadata!.labels = { ...o.metadata!.labels, [NAME_LABEL]: o.metadata!.name! };
  },
  nameValidator: validateNamespaceName,
  validate: (o) => (fields(o).spec?.finalizers ?? []).flatMap((f, i) => validateFinalizerName(f, FieldPath.root('spec', 'finalizers').index(i))),
  beforeDelete(o) {
    const ns = fields(o);
    if (!(ns.spec?.finalizers?.length)) return false;
    ns.status = { ...ns.status, phase: 'Terminating' };
    return true;
  },
  returnDeletedObject: true,
  fields: { 'status.phase': (o) => fields(o).status?.phase ?? '' },
  table: {
    columns: [column('Status', 'string', 'The status of the namespace'), AGE],
    cells: (o, now) => [fields(o).status?.phase ?? '', ageOf(o, now)],
  },
});
