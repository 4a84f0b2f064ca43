import { ApiError } from '@cl/apimachinery';
import { DEFAULT_ADDRESS_TYPES, hostPort, nodeConnection, type NodeForConnection } from './node-address';

const node = (addresses: Array<[string, string]>, port?: number): NodeForConnection => ({
  metadata: { name: 'n1' },
  status: { addresses: addresses.map(([type, address]) => ({ type, address })), ...(port !== undefined ? { daemonEndpoints: { kubeletEndpoint: { Port: port } } } : {}) },
});

describe('nodeConnection', () => {
  test.each<[string, NodeForConnection, readonly string[], { host: string; port: number }]>([
    ['Hostname first by default', node([['InternalIP', '10.0.0.5'], ['Hostname', 'n1']], 10250), DEFAULT_ADDRESS_TYPES, { host: 'n1', port: 10250 }],
    ['the type order decides, not the node order', node([['ExternalIP', '1.2.3.4'], ['InternalIP', '10.0.0.5']], 10250), DEFAULT_ADDRESS_TYPES, { host: '10.0.0.5', port: 10250 }],
    ['the first address of a type', node([['InternalIP', '10.0.0.5'], ['InternalIP', '10.0.0.6']], 11000), ['InternalIP'], { host: '10.0.0.5', port: 11000 }],
    ['a flag order', node([['Hostname', 'n1'], ['InternalIP', '127.0.0.1']], 12345), ['InternalIP', 'Hostname'], { host: '127.0.0.1', port: 12345 }],
    ['no published port: 10250', node([['InternalIP', '10.0.0.5']]), DEFAULT_ADDRESS_TYPES, { host: '10.0.0.5', port: 10250 }],
    ['port 0: 10250', node([['InternalIP', '10.0.0.5']], 0), DEFAULT_ADDRESS_TYPES, { host: '10.0.0.5', port: 10250 }],
    ['empty addresses are skipped', node([['Hostname', ''], ['InternalIP', '10.0.0.5']], 1), DEFAULT_ADDRESS_TYPES, { host: '10.0.0.5', port: 1 }],
  ])('%s', (_name, n, types, want) => {
    expect(nodeConnection(n, types)).toEqual(want);
  });

  test.each<[string, NodeForConnection, readonly string[], string]>([
    ['no addresses', node([]), DEFAULT_ADDRESS_TYPES, 'Internal error occurred: no preferred addresses found; known addresses: []'],
    ['none of the preferred types', node([['InternalIP', '10.0.0.5'], ['Hostname', 'n1']]), ['ExternalIP'], 'Internal error occurred: no preferred addresses found; known addresses: [{InternalIP 10.0.0.5} {Hostname n1}]'],
  ])('%s is an internal error', (_name, n, types, message) => {
    let err: unknown;
    try {
      nodeConnection(n, types);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toMatchObject({ code: 500, reason: 'InternalError', message });
  });

  test.each([
    [{ host: '10.0.0.5', port: 10250 }, '10.0.0.5:10250'],
    [{ host: 'fd00::1', port: 10250 }, '[fd00::1]:10250'],
    [{ host: 'node-a', port: 1 }, 'node-a:1'],
  ])('hostPort(%j) = %s', (c, want) => {
    expect(hostPort(c)).toBe(want);
  });
});
