import { FieldError, FieldPath } from '../field';
import type { ObjectMeta, OwnerReference } from '../meta';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta';
import type { ObjectMetaValidationOptions } from './object-meta';
import { NameValidator, nameIsDNSLabel } from './validation';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const messages = (errs: readonly FieldError[]) => errs.map((e) => e.message);
const cluster: ObjectMetaValidationOptions = { namespaced: false };
const namespaced: ObjectMetaValidationOptions = { namespaced: true };

const ref = (over: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'customresourceVersion',
  kind: 'customresourceKind',
  name: 'name',
  uid: '1',
  ...over,
});

describe('validateObjectMeta', () => {
  const onlyTest: NameValidator = (s) => (s === 'test' ? [] : ['name-gen']);

  test.each<[string, ObjectMeta, ObjectMetaValidationOptions, string[]]>([
    ['a valid cluster-scoped object', { name: 'test' }, cluster, []],
    ['a valid namespaced object', { name: 'test', namespace: 'default' }, namespaced, []],
    ['no name', {}, cluster, ['metadata.name: Required value: name or generateName is required']],
    // Validation runs after name generation: generateName alone means generation did not happen.
    ['generateName alone', { generateName: 'foo-' }, cluster, ['metadata.name: Required value: name or generateName is required']],
    ['a generateName may end in a dash', { name: 'test', generateName: 'foo-' }, cluster, []],
    ['a bad name', { name: 'Test' }, cluster, [`metadata.name: Invalid value: "Test": ${SUBDOMAIN_MSG}`]],
    ['a bad generateName', { name: 'test', generateName: 'Foo-' }, cluster, [`metadata.generateName: Invalid value: "Foo-": ${SUBDOMAIN_MSG}`]],
    ['a custom name validator', { name: 'test', generateName: 'foo' }, { namespaced: false, nameValidator: onlyTest }, ['metadata.generateName: Invalid value: "foo": name-gen']],
    ['a DNS-label kind', { name: 'a.b' }, { namespaced: false, nameValidator: nameIsDNSLabel }, ['metadata.name: Invalid value: "a.b": must not contain dots']],
    ['namespace required', { name: 'test' }, namespaced, ['metadata.namespace: Required value']],
    ['namespace forbidden', { name: 'test', namespace: 'x' }, cluster, ['metadata.namespace: Forbidden: not allowed on this type']],
    ['namespace is a DNS label', { name: 'test', namespace: 'foo.bar' }, namespaced, ['metadata.namespace: Invalid value: "foo.bar": must not contain dots']],
    [
      'namespace too long and invalid',
      { name: 'test', namespace: 'A'.repeat(64) },
      namespaced,
      [
        `metadata.namespace: Invalid value: "${'A'.repeat(64)}": must be no more than 63 characters`,
        `metadata.namespace: Invalid value: "${'A'.repeat(64)}": ${LABEL_MSG}`,
      ],
    ],
    ['negative generation', { name: 'test', generation: -1 }, cluster, ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']],
    ['bad label key', { name: 'test', labels: { 'x y': 'v' } }, cluster, [`metadata.labels: Invalid value: "x y": ${NAME_PART_MSG}`]],
    ['bad label value', { name: 'test', labels: { app: '-bad' } }, cluster, [`metadata.labels: Invalid value: "-bad": ${LABEL_VALUE_MSG}`]],
    [
      'labels are checked in key order',
      { name: 'test', labels: { b: '-', 'a/b/c': 'v' } },
      cluster,
      [`metadata.labels: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`, `metadata.labels: Invalid value: "-": ${LABEL_VALUE_MSG}`],
    ],
    ['label keys may not have capital prefixes', { name: 'test', labels: { 'Example.com/x': 'v' } }, cluster, [`metadata.labels: Invalid value: "Example.com/x": prefix part ${SUBDOMAIN_MSG}`]],
    ['annotation keys may', { name: 'test', annotations: { 'Example.com/x': 'v', UpperCase123: 'bar' } }, cluster, []],
    ['bad annotation key', { name: 'test', annotations: { 'nospecialchars^=@': 'bar' } }, cluster, [`metadata.annotations: Invalid value: "nospecialchars^=@": ${NAME_PART_MSG}`]],
    ['annotation key with two slashes', { name: 'test', annotations: { 'only/one/slash': 'bar' } }, cluster, [`metadata.annotations: Invalid value: "only/one/slash": ${QUALIFIED_NAME_MSG}`]],
    ['annotations at the size limit', { name: 'test', annotations: { a: 'b'.repeat(262143) } }, cluster, []],
    ['annotations split at the limit', { name: 'test', annotations: { a: 'b'.repeat(131071), c: 'd'.repeat(131071) } }, cluster, []],
    ['annotations over the limit', { name: 'test', annotations: { a: 'b'.repeat(262144) } }, cluster, ['metadata.annotations: Too long: may not be more than 262144 bytes']],
    ['annotations split over the limit', { name: 'test', annotations: { a: 'b'.repeat(131072), c: 'd'.repeat(131072) } }, cluster, ['metadata.annotations: Too long: may not be more than 262144 bytes']],
    // Sizes are UTF-8 bytes: 131072 two-byte characters plus the key.
    ['annotation sizes count bytes', { name: 'test', annotations: { a: 'é'.repeat(131072) } }, cluster, ['metadata.annotations: Too long: may not be more than 262144 bytes']],
    ['a custom-resource owner', { name: 'test', ownerReferences: [ref()] }, cluster, []],
    [
      'an owner with nothing set',
      { name: 'test', ownerReferences: [ref({ apiVersion: '', kind: '', name: '', uid: '' })] },
      cluster,
      [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      ],
    ],
    ['an owner apiVersion with no version', { name: 'test', ownerReferences: [ref({ apiVersion: 'apps/' })] }, cluster, ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty']],
    ['an owner apiVersion with two slashes', { name: 'test', ownerReferences: [ref({ apiVersion: 'a/b/c' })] }, cluster, ['metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty']],
    ['an owner in a group', { name: 'test', ownerReferences: [ref({ apiVersion: 'apps/v1', kind: 'ReplicaSet' })] }, cluster, []],
    [
      'an Event cannot own anything',
      { name: 'test', ownerReferences: [ref({ apiVersion: 'v1', kind: 'Event' })] },
      cluster,
      [
        'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"name", UID:"1", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
      ],
    ],
    ['an events.k8s.io Event can', { name: 'test', ownerReferences: [ref({ apiVersion: 'events.k8s.io/v1', kind: 'Event' })] }, cluster, []],
    [
      'one controller only',
      {
        name: 'test',
        ownerReferences: [
          ref({ kind: 'customresourceKind1', controller: false }),
          ref({ kind: 'customresourceKind2', controller: true }),
          ref({ kind: 'customresourceKind3', controller: true, blockOwnerDeletion: false }),
        ],
      },
      cluster,
      [
        'metadata.ownerReferences: Invalid value: []v1.OwnerReference{' +
          'v1.OwnerReference{APIVersion:"customresourceVersion", Kind:"customresourceKind1", Name:"name", UID:"1", Controller:(*bool)(false), BlockOwnerDeletion:(*bool)(nil)}, ' +
          'v1.OwnerReference{APIVersion:"customresourceVersion", Kind:"customresourceKind2", Name:"name", UID:"1", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(nil)}, ' +
          'v1.OwnerReference{APIVersion:"customresourceVersion", Kind:"customresourceKind3", Name:"name", UID:"1", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(false)}}' +
          ': Only one reference can have Controller set to true. Found "true" in references for customresourceKind2/name and customresourceKind3/name',
      ],
    ],
    ['good finalizers', { name: 'test', finalizers: ['example.com/x', 'kubernetes', 'orphan'] }, cluster, []],
    ['bad finalizer', { name: 'test', finalizers: ['a/b/c'] }, cluster, [`metadata.finalizers: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`]],
    [
      'conflicting finalizers',
      { name: 'test', finalizers: ['orphan', 'foregroundDeletion'] },
      cluster,
      ['metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set'],
    ],
    [
      'errors come in upstream order',
      { namespace: 'x', generation: -2, labels: { a: '-' }, finalizers: ['-'] },
      cluster,
      [
        'metadata.name: Required value: name or generateName is required',
        'metadata.namespace: Forbidden: not allowed on this type',
        'metadata.generation: Invalid value: -2: must be greater than or equal to 0',
        `metadata.labels: Invalid value: "-": ${LABEL_VALUE_MSG}`,
        `metadata.finalizers: Invalid value: "-": ${NAME_PART_MSG}`,
      ],
    ],
  ])('%s', (_name, meta, options, expected) => {
    expect(messages(validateObjectMeta(meta, options))).toEqual(expected);
  });

  test('errors are reported under the given path', () => {
    const path = FieldPath.root('spec', 'template', 'metadata');
    expect(messages(validateObjectMeta({ labels: { a: '-' } }, { namespaced: false, path }))).toEqual([
      'spec.template.metadata.name: Required value: name or generateName is required',
      `spec.template.metadata.labels: Invalid value: "-": ${LABEL_VALUE_MSG}`,
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const base: ObjectMeta = { name: 'test', resourceVersion: '1' };
  const now = '1970-01-01T00:16:40Z';
  const later = '1970-01-01T00:33:20Z';
  const deleting = '2024-01-01T00:00:00Z';

  test.each<[string, ObjectMeta, ObjectMeta, string[]]>([
    ['nothing changed', base, base, []],
    ['no resourceVersion', base, { name: 'test' }, ['field.resourceVersion: Invalid value: "": must be specified for an update']],
    ['name changed', base, { ...base, name: 'other' }, ['field.name: Invalid value: "other": field is immutable']],
    ['namespace changed', { ...base, namespace: 'a' }, { ...base, namespace: 'b' }, ['field.namespace: Invalid value: "b": field is immutable']],
    ['namespace removed', { ...base, namespace: 'a' }, base, ['field.namespace: Invalid value: "": field is immutable']],
    ['uid changed', { ...base, uid: 'u1' }, { ...base, uid: 'u2' }, ['field.uid: Invalid value: "u2": field is immutable']],
    ['generation decremented', { ...base, generation: 5 }, { ...base, generation: 4 }, ['field.generation: Invalid value: 4: must not be decremented']],
    ['generation incremented', { ...base, generation: 1 }, { ...base, generation: 2 }, []],
    ['generation unchanged', { ...base, generation: 5 }, { ...base, generation: 5 }, []],
    [
      'creationTimestamp dropped',
      { ...base, creationTimestamp: '1970-01-01T00:00:10Z' },
      base,
      ['field.creationTimestamp: Invalid value: 0001-01-01 00:00:00 +0000 UTC: field is immutable'],
    ],
    [
      'creationTimestamp set',
      base,
      { ...base, creationTimestamp: '1970-01-01T00:00:10Z' },
      ['field.creationTimestamp: Invalid value: 1970-01-01 00:00:10 +0000 UTC: field is immutable'],
    ],
    [
      'creationTimestamp moved',
      { ...base, creationTimestamp: '1970-01-01T00:00:11Z' },
      { ...base, creationTimestamp: '1970-01-01T00:00:10Z' },
      ['field.creationTimestamp: Invalid value: 1970-01-01 00:00:10 +0000 UTC: field is immutable'],
    ],
    ['creationTimestamp null is unset', base, { ...base, creationTimestamp: null }, []],
    [
      'creationTimestamp respelled',
      { ...base, creationTimestamp: '2024-01-01T01:00:00+01:00' },
      { ...base, creationTimestamp: '2024-01-01T00:00:00Z' },
      [],
    ],
    ['deletion fields kept', { ...base, deletionTimestamp: now, deletionGracePeriodSeconds: 30 }, { ...base, deletionTimestamp: now, deletionGracePeriodSeconds: 30 }, []],
    ['deletionTimestamp set', base, { ...base, deletionTimestamp: now }, ['field.deletionTimestamp: Invalid value: 1970-01-01 00:16:40 +0000 UTC: field is immutable']],
    ['deletionTimestamp cleared', { ...base, deletionTimestamp: now }, base, ['field.deletionTimestamp: Invalid value: "null": field is immutable']],
    ['deletionTimestamp changed', { ...base, deletionTimestamp: now }, { ...base, deletionTimestamp: later }, ['field.deletionTimestamp: Invalid value: 1970-01-01 00:33:20 +0000 UTC: field is immutable']],
    ['deletionGracePeriodSeconds set', base, { ...base, deletionGracePeriodSeconds: 30 }, ['field.deletionGracePeriodSeconds: Invalid value: 30: field is immutable']],
    ['deletionGracePeriodSeconds cleared', { ...base, deletionGracePeriodSeconds: 30 }, base, ['field.deletionGracePeriodSeconds: Invalid value: "null": field is immutable']],
    ['deletionGracePeriodSeconds changed', { ...base, deletionGracePeriodSeconds: 30 }, { ...base, deletionGracePeriodSeconds: 40 }, ['field.deletionGracePeriodSeconds: Invalid value: 40: field is immutable']],
    ['deletionGracePeriodSeconds zero is set', base, { ...base, deletionGracePeriodSeconds: 0 }, ['field.deletionGracePeriodSeconds: Invalid value: 0: field is immutable']],
    [
      'no finalizer added while deleting',
      { ...base, deletionTimestamp: deleting, finalizers: ['x/a'] },
      { ...base, deletionTimestamp: deleting, finalizers: ['x/a', 'y/b'] },
      ['field.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"y/b"}'],
    ],
    [
      'no finalizer changed while deleting',
      { ...base, deletionTimestamp: deleting, finalizers: ['x/a'] },
      { ...base, deletionTimestamp: deleting, finalizers: ['z/c', 'x/b'] },
      ['field.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x/b", "z/c"}'],
    ],
    ['finalizers removed while deleting', { ...base, deletionTimestamp: deleting, finalizers: ['x/a', 'y/b'] }, { ...base, deletionTimestamp: deleting, finalizers: ['x/a'] }, []],
    ['finalizers added when not deleting', { ...base, finalizers: ['x/a'] }, { ...base, finalizers: ['x/a', 'y/b'] }, []],
    ['new labels are checked', base, { ...base, labels: { a: '-' } }, [`field.labels: Invalid value: "-": ${LABEL_VALUE_MSG}`]],
    ['new annotations are checked', base, { ...base, annotations: { 'a/b/c': '' } }, [`field.annotations: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`]],
    ['new owners are checked', base, { ...base, ownerReferences: [ref({ uid: '' })] }, ['field.ownerReferences.uid: Invalid value: "": uid must not be empty']],
  ])('%s', (_name, prev, next, expected) => {
    expect(messages(validateObjectMetaUpdate(next, prev, FieldPath.root('field')))).toEqual(expected);
  });

  test('the path defaults to metadata', () => {
    expect(messages(validateObjectMetaUpdate({ name: 'b', resourceVersion: '2' }, { name: 'a' }))).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
    ]);
  });
});
