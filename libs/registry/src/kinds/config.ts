// Config maps and secrets: keys as upstream allows them, the 1 MiB size limit, `immutable`, and for secrets
// stringData folded into data and the keys each secret type requires.
import { fieldErrors, FieldPath, isConfigMapKey, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { Strategy } from '../strategy';
import { AGE, ageOf, column, countKeys } from './columns';

const MAX_SIZE = 1024 * 1024;

interface DataFields {
  immutable?: boolean;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
}

const f = (o: KubeObject) => o as KubeObject & DataFields;

function validateKeys(map: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(map ?? {})) for (const m of isConfigMapKey(key)) errs.push(fieldErrors.invalid(path, key, m));
  return errs;
}

function immutability(o: KubeObject, old: KubeObject, fieldsThatFreeze: Array<keyof DataFields>): FieldError[] {
  if (!f(old).immutable) return [];
  const errs: FieldError[] = [];
  if (!f(o).immutable) errs.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const field of fieldsThatFreeze) {
    if (JSON.stringify(f(o)[field] ?? {}) !== JSON.stringify(f(old)[field] ?? {})) errs.push(fieldErrors.forbidden(field, 'field is immutable when `immutable` is set'));
  }
  return errs;
}

function validateConfigMap(o: KubeObject): FieldError[] {
  const cm = f(o);
  const errs = [...validateKeys(cm.data, FieldPath.root('data')), ...validateKeys(cm.binaryData, FieldPath.root('binaryData'))];
  for (const key of Object.keys(cm.binaryData ?? {})) {
    if (cm.data && key in cm.data) errs.push(fieldErrors.invalid(FieldPath.root('data'), key, 'duplicate of key present in binaryData'));
  }
  let size = 0;
  for (const v of Object.values(cm.data ?? {})) size += Buffer.byteLength(v);
  for (const v of Object.values(cm.binaryData ?? {})) size += Buffer.from(v, 'base64').length;
  if (size > MAX_SIZE) errs.push(fieldErrors.tooLong('', MAX_SIZE));
  return errs;
}

export const configMapStrategy: Strategy = {
  validate: validateConfigMap,
  validateUpdate: (o, old) => [...validateConfigMap(o), ...immutability(o, old, ['data', 'binaryData'])],
  table: {
    columns: [column('Data', 'string', 'Number of keys in data and binaryData'), AGE],
    cells: (o, now) => [countKeys(f(o).data, f(o).binaryData), ageOf(o, now)],
  },
};

// The keys each well-known secret type must carry (upstream's ValidateSecret).
const REQUIRED_KEYS: Record<string, string[][]> = {
  'kubernetes.io/dockercfg': [['.dockercfg']],
  'kubernetes.io/dockerconfigjson': [['.dockerconfigjson']],
  'kubernetes.io/ssh-auth': [['ssh-privatekey']],
  'kubernetes.io/tls': [['tls.crt'], ['tls.key']],
};

function validateSecret(o: KubeObject): FieldError[] {
  const s = f(o);
  const data = s.data ?? {};
  const errs = validateKeys(data, FieldPath.root('data'));
  let size = 0;
  for (const v of Object.values(data)) size += Buffer.from(v, 'base64').length;
  if (size > MAX_SIZE) errs.push(fieldErrors.tooLong('data', MAX_SIZE));
  const type = s.type ?? 'Opaque';
  for (const alternatives of REQUIRED_KEYS[type] ?? []) {
    if (!alternatives.some((k) => k in data)) errs.push(fieldErrors.required(FieldPath.root('data').key(alternatives[0])));
  }
  if (type === 'kubernetes.io/service-account-token' && !o.metadata?.annotations?.['kubernetes.io/service-account.name']) {
    errs.push(fieldErrors.required(FieldPath.root('metadata', 'annotations').key('kubernetes.io/service-account.name')));
  }
  if (type === 'kubernetes.io/basic-auth' && !('username' in data) && !('password' in data)) {
    errs.push(fieldErrors.required(FieldPath.root('data').key('username')), fieldErrors.required(FieldPath.root('data').key('password')));
  }
  if (type === 'kubernetes.io/dockerconfigjson' && '.dockerconfigjson' in data) {
    try {
      JSON.parse(Buffer.from(data['.dockerconfigjson'], 'base64').toString('utf8'));
    } catch (e) {
      errs.push(fieldErrors.invalid(FieldPath.root('data').key('.dockerconfigjson'), '<secret contents redacted>', (e as Error).message));
    }
  }
  return errs;
}

/** stringData is a write-only convenience: merged into data (winning over it) and never stored. */
function foldStringData(o: KubeObject) {
  const s = f(o);
  if (s.stringData) {
    s.data = { ...s.data };
    for (const [k, v] of Object.entries(s.stringData)) s.data[k] = Buffer.from(v, 'utf8').toString('base64');
    delete s.stringData;
  }
  s.type ||= 'Opaque';
}

export const secretStrategy: Strategy = {
  prepareForCreate: foldStringData,
  prepareForUpdate: foldStringData,
  validate: validateSecret,
  validateUpdate(o, old) {
    const errs = [...validateSecret(o), ...immutability(o, old, ['data'])];
    if ((f(o).type ?? 'Opaque') !== (f(old).type ?? 'Opaque')) errs.push(fieldErrors.invalid('type', f(o).type, 'field is immutable'));
    return errs;
  },
  fields: { type: (o) => f(o).type ?? '' },
  table: {
    columns: [column('Type', 'string', 'The type of the secret'), column('Data', 'string', 'Number of keys in the secret'), AGE],
    cells: (o, now) => [f(o).type ?? '', countKeys(f(o).data), ageOf(o, now)],
  },
};

export const serviceAccountStrategy: Strategy = {
  table: {
    columns: [column('Secrets', 'string', 'Number of secrets referenced'), AGE],
    cells: (o, now) => [((o as { secrets?: unknown[] }).secrets ?? []).length, ageOf(o, now)],
  },
};
