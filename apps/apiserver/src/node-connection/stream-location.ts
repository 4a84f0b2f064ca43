// pods/exec, pods/attach and pods/portforward: the node agent path and query upstream's ExecLocation,
// AttachLocation and PortForwardLocation build from the caller's options (core/v1's input/output/error/tty names,
// keys sorted as Go's url.Values.Encode writes them).
import { apiErrors } from '@cl/apimachinery';
import { logContainer, type PodForLogs } from './pod-log-options';

export type PodStreamKind = 'exec' | 'attach' | 'portforward';

const AGENT_PATH: Record<PodStreamKind, string> = { exec: 'exec', attach: 'attach', portforward: 'portForward' };

/** Go's query-to-bool conversion: absent, "", "0" and "false" (any case) are false. */
const queryBool = (v: string | null) => v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

export function streamLocation(kind: PodStreamKind, pod: PodForLogs, q: URLSearchParams): string {
  const name = pod.metadata.name;
  const ns = encodeURIComponent(pod.metadata.namespace ?? '');
  const params: Array<[string, string]> = [];
  let path: string;
  if (kind === 'portforward') {
    for (const p of q.getAll('ports')) for (const port of p.split(',')) if (port) params.push(['port', port]);
    path = `/${AGENT_PATH[kind]}/${ns}/${encodeURIComponent(name)}`;
  } else {
    const container = logContainer(pod, q.get('container') ?? '');
    if (kind === 'exec') for (const c of q.getAll('command')) params.push(['command', c]);
    if (queryBool(q.get('stderr'))) params.push(['error', '1']);
    if (queryBool(q.get('stdin'))) params.push(['input', '1']);
    if (queryBool(q.get('stdout'))) params.push(['output', '1']);
    if (queryBool(q.get('tty'))) params.push(['tty', '1']);
    path = `/${AGENT_PATH[kind]}/${ns}/${encodeURIComponent(name)}/${encodeURIComponent(container)}`;
  }
  if (!pod.spec?.nodeName) throw apiErrors.badRequest(`pod ${name} does not have a host assigned`);
  const query = new URLSearchParams(params).toString();
  return query ? `${path}?${query}` : path;
}
