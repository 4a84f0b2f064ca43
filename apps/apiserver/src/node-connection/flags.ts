// kube-apiserver's kubelet client flags: the API server's identity towards node agents, how it verifies them,
// which node address it dials and how long it waits for an agent's answer.
import { types, formatDuration, type FlagSet } from '@cl/flags';
import { DEFAULT_ADDRESS_TYPES, KNOWN_ADDRESS_TYPES } from './node-address';

export interface NodeAgentOptions {
  clientCertFile: string;
  clientKeyFile: string;
  caFile: string;
  preferredAddressTypes: string[];
  timeoutMs: number;
}

const SECTION = 'Kubelet client flags';

export function addNodeAgentFlags(fs: FlagSet): void {
  fs.add({ name: 'kubelet-client-certificate', type: types.string, default: '', section: SECTION, usage: 'Path to a client cert file for TLS.' })
    .add({ name: 'kubelet-client-key', type: types.string, default: '', section: SECTION, usage: 'Path to a client key file for TLS.' })
    .add({ name: 'kubelet-certificate-authority', type: types.string, default: '', section: SECTION, usage: 'Path to a cert file for the certificate authority.' })
    .add({ name: 'kubelet-preferred-address-types', type: types.stringSlice, default: [...DEFAULT_ADDRESS_TYPES], section: SECTION, usage: 'List of the preferred NodeAddressTypes to use for kubelet connections.' })
    .add({ name: 'kubelet-timeout', type: types.duration, default: 5000, section: SECTION, usage: 'Timeout for kubelet operations.' });
}

export function nodeAgentOptions(v: Record<string, unknown>): NodeAgentOptions {
  return {
    clientCertFile: v['kubelet-client-certificate'] as string,
    clientKeyFile: v['kubelet-client-key'] as string,
    caFile: v['kubelet-certificate-authority'] as string,
    preferredAddressTypes: v['kubelet-preferred-address-types'] as string[],
    timeoutMs: v['kubelet-timeout'] as number,
  };
}

/** Every problem with the flags, in the flag-error form (start-up refuses them before binding a port). */
export function validateNodeAgentOptions(o: NodeAgentOptions): string[] {
  const errs: string[] = [];
  if ((o.clientCertFile === '') !== (o.clientKeyFile === '')) errs.push('--kubelet-client-certificate and --kubelet-client-key must be specified together');
  if (o.preferredAddressTypes.length === 0) errs.push('--kubelet-preferred-address-types is required');
  for (const t of o.preferredAddressTypes) {
    if (!KNOWN_ADDRESS_TYPES.includes(t)) errs.push(`--kubelet-preferred-address-types: unsupported value ${JSON.stringify(t)}: supported values: ${KNOWN_ADDRESS_TYPES.map((x) => JSON.stringify(x)).join(', ')}`);
  }
  if (o.timeoutMs <= 0) errs.push(`--kubelet-timeout must be greater than 0, got ${formatDuration(o.timeoutMs)}`);
  return errs;
}
