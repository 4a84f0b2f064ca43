import { node, pod, type PodSpec } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import { NODE_AFFINITY_REASON, nodeAffinity } from './node-affinity';

const labels = { disk: 'ssd', zone: 'a', cores: '8' };
const expr = (key: string, operator: string, values?: string[]) => ({ key, operator, values });
const terms = (...t: Array<{ matchExpressions?: ReturnType<typeof expr>[]; matchFields?: ReturnType<typeof expr>[] }>) => ({ nodeSelectorTerms: t });

const cases: Array<[string, PodSpec, boolean]> = [
  ['no selector, no affinity', {}, true],
  ['nodeSelector matches', { nodeSelector: { disk: 'ssd' } }, true],
  ['nodeSelector with another value', { nodeSelector: { disk: 'hdd' } }, false],
  ['nodeSelector with a label the node lacks', { nodeSelector: { gpu: 'yes' } }, false],
  ['In', { required: terms({ matchExpressions: [expr('zone', 'In', ['a', 'b'])] }) }, true],
  ['In, no value matches', { required: terms({ matchExpressions: [expr('zone', 'In', ['b'])] }) }, false],
  ['NotIn', { required: terms({ matchExpressions: [expr('zone', 'NotIn', ['b'])] }) }, true],
  ['NotIn of an absent label', { required: terms({ matchExpressions: [expr('gpu', 'NotIn', ['x'])] }) }, true],
  ['Exists', { required: terms({ matchExpressions: [expr('disk', 'Exists')] }) }, true],
  ['DoesNotExist', { required: terms({ matchExpressions: [expr('disk', 'DoesNotExist')] }) }, false],
  ['Gt', { required: terms({ matchExpressions: [expr('cores', 'Gt', ['4'])] }) }, true],
  ['Lt', { required: terms({ matchExpressions: [expr('cores', 'Lt', ['4'])] }) }, false],
  ['Gt with a value that is no integer: no match', { required: terms({ matchExpressions: [expr('cores', 'Gt', ['four'])] }) }, false],
  ['expressions of a term are ANDed', { required: terms({ matchExpressions: [expr('zone', 'In', ['a']), expr('disk', 'In', ['hdd'])] }) }, false],
  ['terms are ORed', { required: terms({ matchExpressions: [expr('disk', 'In', ['hdd'])] }, { matchExpressions: [expr('zone', 'In', ['a'])] }) }, true],
  ['an empty term matches nothing', { required: terms({}) }, false],
  ['no terms match nothing', { required: terms() }, false],
  ['an invalid term is skipped, a valid one still matches', { required: terms({ matchExpressions: [expr('zone', 'Near', ['a'])] }, { matchExpressions: [expr('disk', 'Exists')] }) }, true],
  ['In without values is invalid', { required: terms({ matchExpressions: [expr('zone', 'In', [])] }) }, false],
  ['Exists with values is invalid', { required: terms({ matchExpressions: [expr('zone', 'Exists', ['a'])] }) }, false],
  ['matchFields on the node name', { required: terms({ matchFields: [expr('metadata.name', 'In', ['n'])] }) }, true],
  ['matchFields NotIn the node name', { required: terms({ matchFields: [expr('metadata.name', 'NotIn', ['n'])] }) }, false],
  ['matchFields on another field is invalid', { required: terms({ matchFields: [expr('metadata.uid', 'In', ['n'])] }) }, false],
  ['labels and fields of one term are ANDed', { required: terms({ matchExpressions: [expr('zone', 'In', ['a'])], matchFields: [expr('metadata.name', 'In', ['m'])] }) }, false],
  ['nodeSelector and affinity must both match', { nodeSelector: { disk: 'hdd' }, required: terms({ matchExpressions: [expr('zone', 'In', ['a'])] }) }, false],
];

test.each(cases)('%s', (_name, spec, fits) => {
  expect(nodeAffinity(pod('p', spec), nodeInfoFor(node('n', { labels })))).toBe(fits ? null : NODE_AFFINITY_REASON);
});

test('the reason is upstream 1.33 text', () => {
  expect(NODE_AFFINITY_REASON).toBe("node(s) didn't match Pod's node affinity/selector");
});
