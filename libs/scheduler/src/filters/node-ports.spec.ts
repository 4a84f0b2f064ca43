import { node, pod } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import type { ContainerPort } from '../types';
import { NODE_PORTS_REASON, nodePorts } from './node-ports';

const cases: Array<[string, ContainerPort[], ContainerPort[], boolean]> = [
  ['no host ports wanted', [{ hostPort: 80 }], [{ containerPort: 80 }], true],
  ['a free port', [{ hostPort: 80 }], [{ hostPort: 8080 }], true],
  ['the same port, both on all addresses', [{ hostPort: 80 }], [{ hostPort: 80 }], false],
  ['protocol TCP is the default', [{ hostPort: 80, protocol: 'TCP' }], [{ hostPort: 80 }], false],
  ['another protocol', [{ hostPort: 53, protocol: 'TCP' }], [{ hostPort: 53, protocol: 'UDP' }], true],
  ['a specific address against one on all addresses', [{ hostPort: 80 }], [{ hostPort: 80, hostIP: '10.0.0.1' }], false],
  ['all addresses against a specific one in use', [{ hostPort: 80, hostIP: '10.0.0.1' }], [{ hostPort: 80 }], false],
  ['two different specific addresses', [{ hostPort: 80, hostIP: '10.0.0.1' }], [{ hostPort: 80, hostIP: '10.0.0.2' }], true],
  ['hostPort 0 is no host port', [{ hostPort: 0, containerPort: 80 }], [{ hostPort: 0, containerPort: 80 }], true],
];

test.each(cases)('%s', (_name, used, wanted, fits) => {
  const info = nodeInfoFor(node('n'), [pod('running', { hostPorts: used, nodeName: 'n' })]);
  expect(nodePorts(pod('p', { hostPorts: wanted }), info)).toBe(fits ? null : NODE_PORTS_REASON);
});
