// ValidateEgressSelectorConfiguration (k8s.io/apiserver egressselector/config.go, 1.33). Upstream roots
// every error at the literal path `service.connection`, ignoring the selection index except for duplicates.
import { FieldPath, fieldErrors, GoLiteral, goQuote, type FieldError } from '../field';
import type { Connection, EgressSelectorConfiguration, TCPTransport } from '../types/egress';
import { fileExists } from './common';

const BASE = FieldPath.root('service', 'connection');
export const EGRESS_SELECTION_NAMES = ['cluster', 'controlplane', 'etcd'] as const;

export function validateEgressSelectorConfiguration(c: EgressSelectorConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  const selections = c.egressSelections ?? [];
  for (const s of selections) errs.push(...validateConnection(s.connection ?? ({ proxyProtocol: '' } as Connection)));
  const seen = new Set<string>();
  selections.forEach((s, i) => {
    let n = (s.name ?? '').toLowerCase();
    // the spec's name for the data store selection is the same selection as upstream's `etcd`
    if (n === 'store') n = 'etcd';
    if (seen.has(n)) return void errs.push(fieldErrors.duplicate(BASE.index(i), n));
    seen.add(n);
    if (!(EGRESS_SELECTION_NAMES as readonly string[]).includes(n)) {
      errs.push(fieldErrors.notSupported(BASE, n, EGRESS_SELECTION_NAMES));
    }
  });
  return errs;
}

function validateConnection(c: Connection): FieldError[] {
  const errs: FieldError[] = [];
  const t = c.transport;
  switch (c.proxyProtocol ?? '') {
    case 'Direct':
      if (t) errs.push(fieldErrors.invalid(BASE.child('transport'), 'direct', 'Transport config should be absent for direct connect'));
      break;
    case 'HTTPConnect':
      if (!t) {
        errs.push(fieldErrors.required(BASE.child('transport'), 'transport must be set for HTTPConnect'));
        break;
      }
      if (t.tcp && t.uds) {
        errs.push(fieldErrors.invalid(BASE.child('tcp'), tcpLiteral(t.tcp), 'TCP and UDS cannot both be set'));
      } else if (!t.tcp && !t.uds) {
        errs.push(fieldErrors.required(BASE.child('tcp'), 'One of TCP or UDS must be set'));
      } else if (t.tcp) errs.push(...validateTCP(t.tcp));
      else if (t.uds && !t.uds.udsName) errs.push(udsNameMissing());
      break;
    case 'GRPC':
      if (!t) {
        errs.push(fieldErrors.required(BASE.child('transport'), 'transport must be set for GRPC'));
        break;
      }
      if (t.uds) {
        if (!t.uds.udsName) errs.push(udsNameMissing());
      } else errs.push(fieldErrors.required(BASE.child('uds'), 'UDS must be set with GRPC'));
      break;
    default:
      errs.push(fieldErrors.notSupported(BASE.child('protocol'), c.proxyProtocol ?? '', ['Direct', 'HTTPConnect', 'GRPC']));
  }
  return errs;
}

const udsNameMissing = () => fieldErrors.invalid(BASE.child('udsName'), 'nil', 'UDSName should be present for UDS connections');

function tcpLiteral(tcp: TCPTransport): GoLiteral {
  const tls = tcp.tlsConfig ? '(*apiserver.TLSConfig)(0xc000000000)' : '(*apiserver.TLSConfig)(nil)';
  return new GoLiteral(`apiserver.TCPTransport{URL:${goQuote(tcp.url ?? '')}, TLSConfig:${tls}}`);
}

function validateTCP(tcp: TCPTransport): FieldError[] {
  const url = tcp.url ?? '';
  if (url.startsWith('http://')) {
    return tcp.tlsConfig
      ? [fieldErrors.invalid(BASE.child('tlsConfig'), 'nil', 'TLSConfig config should not be present when using HTTP')]
      : [];
  }
  if (!url.startsWith('https://')) {
    return [fieldErrors.invalid(BASE.child('url'), url, 'supported connection protocols are http:// and https://')];
  }
  const tls = tcp.tlsConfig;
  const tp = BASE.child('tlsConfig');
  if (!tls) return [fieldErrors.required(tp, 'TLSConfig must be present when using HTTPS')];
  const errs: FieldError[] = [];
  if (tls.caBundle && !fileExists(tls.caBundle)) {
    errs.push(fieldErrors.invalid(tp.child('caBundle'), tls.caBundle, 'TLS config ca bundle does not exist'));
  }
  if (!tls.clientCert) errs.push(fieldErrors.invalid(tp.child('clientCert'), 'nil', 'Using TLS requires clientCert'));
  else if (!fileExists(tls.clientCert)) {
    errs.push(fieldErrors.invalid(tp.child('clientCert'), tls.clientCert, 'TLS client cert does not exist'));
  }
  if (!tls.clientKey) errs.push(fieldErrors.invalid(tp.child('clientKey'), 'nil', 'Using TLS requires requires clientKey'));
  else if (!fileExists(tls.clientKey)) {
    errs.push(fieldErrors.invalid(tp.child('clientKey'), tls.clientKey, 'TLS client key does not exist'));
  }
  return errs;
}
