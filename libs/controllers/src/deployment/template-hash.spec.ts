import type { PodTemplate } from '../workloads/types';
import { canonicalJson, fnv32a, podTemplateHash, safeEncode, templatesEqualIgnoringHash } from './template-hash';

const template = (image = 'nginx:1', extra: Record<string, unknown> = {}): PodTemplate => ({
  metadata: { labels: { app: 'web', tier: 'front' } },
  spec: { containers: [{ name: 'c', image, ports: [{ containerPort: 80 }] }], restartPolicy: 'Always', ...extra },
});

describe('fnv32a and safeEncode', () => {
  test.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('fnv32a(%p)', (text, sum) => {
    expect(fnv32a(Buffer.from(text))).toBe(sum);
  });

  test('digits map onto the vowel-free alphabet as rand.SafeEncodeString does', () => {
    expect(safeEncode('0123456789')).toBe('456789bcdf');
  });
});

describe('podTemplateHash', () => {
  test('is the same for identical templates, whatever the key order', () => {
    const a = template();
    const b: PodTemplate = { spec: { restartPolicy: 'Always', containers: [{ ports: [{ containerPort: 80 }], image: 'nginx:1', name: 'c' }] }, metadata: { labels: { tier: 'front', app: 'web' } } };
    expect(podTemplateHash(a)).toBe(podTemplateHash(b));
    expect(podTemplateHash(a)).toMatch(/^[bcdf4-9]{6,10}$/);
  });

  test.each([
    ['another image', template('nginx:2')],
    ['another label', { ...template(), metadata: { labels: { app: 'web' } } }],
    ['another field', template('nginx:1', { dnsPolicy: 'None' })],
  ])('differs for %s', (_name, other) => {
    expect(podTemplateHash(other)).not.toBe(podTemplateHash(template()));
  });

  test('empty and absent values hash alike (they compare equal)', () => {
    expect(podTemplateHash(template('nginx:1', { volumes: [], nodeSelector: {}, hostname: null }))).toBe(podTemplateHash(template()));
  });

  test('collisionCount moves the hash, each count to another value', () => {
    const hashes = new Set([podTemplateHash(template()), podTemplateHash(template(), 0), podTemplateHash(template(), 1), podTemplateHash(template(), 2)]);
    expect(hashes.size).toBe(4);
    expect(podTemplateHash(template(), 1)).toBe(podTemplateHash(template(), 1));
  });

  test('canonical JSON sorts keys and keeps array order', () => {
    expect(canonicalJson({ b: [2, 1], a: { d: 1, c: {} } })).toBe('{"a":{"d":1},"b":[2,1]}');
  });
});

describe('templatesEqualIgnoringHash', () => {
  const withHash = (t: PodTemplate, hash: string): PodTemplate => ({ ...t, metadata: { ...t.metadata, labels: { ...t.metadata?.labels, 'pod-template-hash': hash } } });
  test.each([
    ['a ReplicaSet template and its Deployment template', withHash(template(), '5d4f'), template(), true],
    ['two ReplicaSets of the same template, different hashes', withHash(template(), '5d4f'), withHash(template(), '7c9b'), true],
    ['nil and empty alike', template('nginx:1', { volumes: [] }), template(), true],
    ['another image', withHash(template('nginx:2'), '5d4f'), template(), false],
    ['another label', { ...template(), metadata: { labels: { app: 'web' } } }, template(), false],
  ])('%s: %p', (_name, a, b, equal) => {
    expect(templatesEqualIgnoringHash(a, b)).toBe(equal);
  });
});
