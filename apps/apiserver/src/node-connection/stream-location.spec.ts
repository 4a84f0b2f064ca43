import { ApiError } from '@cl/apimachinery';
import { streamLocation, type PodStreamKind } from './stream-location';
import type { PodForLogs } from './pod-log-options';

const pod = (containers: string[], nodeName = 'n1'): PodForLogs => ({
  metadata: { name: 'web', namespace: 'default' },
  spec: { nodeName, containers: containers.map((name) => ({ name })) },
});

describe('streamLocation', () => {
  test.each<[string, PodStreamKind, PodForLogs, string, string]>([
    ['kubectl exec -i', 'exec', pod(['app']), 'command=sh&command=-c&command=cat%3B+exit+3&container=app&stdin=true&stdout=true&stderr=true&tty=false', '/exec/default/web/app?command=sh&command=-c&command=cat%3B+exit+3&error=1&input=1&output=1'],
    ['exec with a tty, the only container', 'exec', pod(['app']), 'command=sh&stdin=true&stdout=true&tty=true', '/exec/default/web/app?command=sh&input=1&output=1&tty=1'],
    ['attach', 'attach', pod(['a', 'b']), 'container=b&stdout=true&stderr=true', '/attach/default/web/b?error=1&output=1'],
    ['port-forward over SPDY names no ports', 'portforward', pod(['a', 'b']), '', '/portForward/default/web'],
    ['port-forward ports', 'portforward', pod(['a']), 'ports=8080&ports=9090,9091', '/portForward/default/web?port=8080&port=9090&port=9091'],
  ])('%s', (_name, kind, p, query, want) => {
    expect(streamLocation(kind, p, new URLSearchParams(query))).toBe(want);
  });

  test.each<[string, PodStreamKind, PodForLogs, string, string]>([
    ['exec needs a container of several', 'exec', pod(['a', 'b']), 'command=sh', 'a container name must be specified for pod web, choose one of: [a b]'],
    ['attach to an unknown container', 'attach', pod(['a']), 'container=z', 'container z is not valid for pod web'],
    ['a pod on no node', 'exec', pod(['a'], ''), 'command=sh', 'pod web does not have a host assigned'],
    ['port-forward to a pod on no node', 'portforward', pod(['a'], ''), '', 'pod web does not have a host assigned'],
  ])('%s is a 400', (_name, kind, p, query, message) => {
    let err: unknown;
    try {
      streamLocation(kind, p, new URLSearchParams(query));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });
});
