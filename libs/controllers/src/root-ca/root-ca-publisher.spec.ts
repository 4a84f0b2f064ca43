import type { ConfigMap } from '../core-v1/types';
import { DESCRIPTION_ANNOTATION, repairedRootCAConfigMap, ROOT_CA_DESCRIPTION, rootCAConfigMap } from './root-ca-publisher';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const cm = (data: Record<string, string> | undefined, annotations?: Record<string, string>): ConfigMap => ({
  metadata: { name: 'kube-root-ca.crt', namespace: 'ns', resourceVersion: '7', annotations },
  data,
});

it('publishes ca.crt with upstream description', () => {
  expect(rootCAConfigMap(CA)).toEqual({
    metadata: { name: 'kube-root-ca.crt', annotations: { 'kubernetes.io/description': ROOT_CA_DESCRIPTION } },
    data: { 'ca.crt': CA },
  });
  expect(ROOT_CA_DESCRIPTION).toBe(
    'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
  );
});

describe('repairedRootCAConfigMap', () => {
  const described = { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION };
  const cases: Array<[string, ConfigMap, ConfigMap | undefined]> = [
    ['as it should be', cm({ 'ca.crt': CA }, described), undefined],
    ['any description will do', cm({ 'ca.crt': CA }, { [DESCRIPTION_ANNOTATION]: 'ours' }), undefined],
    ['edited data comes back', cm({ 'ca.crt': 'tampered' }, described), cm({ 'ca.crt': CA }, described)],
    ['extra keys go', cm({ 'ca.crt': CA, extra: 'x' }, described), cm({ 'ca.crt': CA }, described)],
    ['emptied', cm(undefined, described), cm({ 'ca.crt': CA }, described)],
    ['a lost description comes back, other annotations stay', cm({ 'ca.crt': CA }, { team: 'a' }), cm({ 'ca.crt': CA }, { team: 'a', ...described })],
  ];
  it.each(cases)('%s', (_name, current, want) => {
    expect(repairedRootCAConfigMap(current, CA)).toEqual(want);
  });
});
