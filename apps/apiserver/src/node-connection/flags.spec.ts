import { DEFAULT_ADDRESS_TYPES } from './node-address';
import { validateNodeAgentOptions, type NodeAgentOptions } from './flags';

const ok: NodeAgentOptions = { clientCertFile: '', clientKeyFile: '', caFile: '', preferredAddressTypes: [...DEFAULT_ADDRESS_TYPES], timeoutMs: 5000 };

describe('validateNodeAgentOptions', () => {
  test.each<[string, Partial<NodeAgentOptions>, string[]]>([
    ['the defaults', {}, []],
    ['a client pair', { clientCertFile: 'c.crt', clientKeyFile: 'c.key' }, []],
    ['a certificate alone', { clientCertFile: 'c.crt' }, ['--kubelet-client-certificate and --kubelet-client-key must be specified together']],
    ['a key alone', { clientKeyFile: 'c.key' }, ['--kubelet-client-certificate and --kubelet-client-key must be specified together']],
    ['no address types', { preferredAddressTypes: [] }, ['--kubelet-preferred-address-types is required']],
    [
      'an unknown address type',
      { preferredAddressTypes: ['InternalIP', 'Public'] },
      ['--kubelet-preferred-address-types: unsupported value "Public": supported values: "Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"'],
    ],
    ['a zero timeout', { timeoutMs: 0 }, ['--kubelet-timeout must be greater than 0, got 0s']],
  ])('%s', (_name, o, want) => {
    expect(validateNodeAgentOptions({ ...ok, ...o })).toEqual(want);
  });
});
