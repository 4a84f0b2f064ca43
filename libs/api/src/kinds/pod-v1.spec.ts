import { decode } from '../decode';
import { patchStrategyAt } from '../patch-strategy';
import { decodeProtobuf } from '../protobuf';
import { node } from './node-v1';
import { imageTag } from './pod-defaults';
import { pod } from './pod-v1';

type Json = Record<string, unknown>;

const DIGEST = 'sha256:' + 'a'.repeat(64);

/** A pod with one container `c` (image nginx:1.25) and `spec` merged over its spec. */
function podJson(spec: Json = {}, extra: Json = {}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec }, ...extra });
}

const decodePod = (body: string) => decode(pod, body, 'Strict').object as Json;

/** The value at a dotted path with [i] indexes (`spec.containers[0].image`). */
function at(value: unknown, path: string): unknown {
  return path
    .split(/\.|(?=\[)/)
    .filter(Boolean)
    .reduce<unknown>((v, part) => {
      if (v === undefined || v === null) return undefined;
      const index = /^\[(\d+)\]$/.exec(part);
      return index ? (v as unknown[])[Number(index[1])] : (v as Json)[part];
    }, value);
}

describe('pod defaults, as kube-apiserver applies them', () => {
  test.each<[string, Json, string, unknown]>([
    ['restartPolicy Always', {}, 'spec.restartPolicy', 'Always'],
    ['restartPolicy kept', { restartPolicy: 'Never' }, 'spec.restartPolicy', 'Never'],
    ['dnsPolicy ClusterFirst', {}, 'spec.dnsPolicy', 'ClusterFirst'],
    ['dnsPolicy "" counts as unset', { dnsPolicy: '' }, 'spec.dnsPolicy', 'ClusterFirst'],
    ['terminationGracePeriodSeconds 30', {}, 'spec.terminationGracePeriodSeconds', 30],
    ['terminationGracePeriodSeconds 0 is kept (a pointer upstream)', { terminationGracePeriodSeconds: 0 }, 'spec.terminationGracePeriodSeconds', 0],
    ['schedulerName default-scheduler', {}, 'spec.schedulerName', 'default-scheduler'],
    ['securityContext {}', {}, 'spec.securityContext', {}],
    ['securityContext kept', { securityContext: { runAsUser: 1000 } }, 'spec.securityContext', { runAsUser: 1000 }],
    ['enableServiceLinks true', {}, 'spec.enableServiceLinks', true],
    ['enableServiceLinks false is kept', { enableServiceLinks: false }, 'spec.enableServiceLinks', false],
    ['terminationMessagePath', {}, 'spec.containers[0].terminationMessagePath', '/dev/termination-log'],
    ['terminationMessagePolicy', {}, 'spec.containers[0].terminationMessagePolicy', 'File'],
    ['init container terminationMessagePath', { initContainers: [{ name: 'i', image: 'busybox:1' }] }, 'spec.initContainers[0].terminationMessagePath', '/dev/termination-log'],
    ['init container imagePullPolicy', { initContainers: [{ name: 'i', image: 'busybox' }] }, 'spec.initContainers[0].imagePullPolicy', 'Always'],
    ['ephemeral container terminationMessagePolicy', { ephemeralContainers: [{ name: 'd', image: 'busybox:1' }] }, 'spec.ephemeralContainers[0].terminationMessagePolicy', 'File'],
    ['ephemeral container imagePullPolicy', { ephemeralContainers: [{ name: 'd', image: 'busybox:latest' }] }, 'spec.ephemeralContainers[0].imagePullPolicy', 'Always'],
    ['imagePullPolicy kept', { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Never' }] }, 'spec.containers[0].imagePullPolicy', 'Never'],
    ['port protocol TCP', { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, 'spec.containers[0].ports[0].protocol', 'TCP'],
    ['port protocol "" is TCP', { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: '' }] }] }, 'spec.containers[0].ports[0].protocol', 'TCP'],
    ['port protocol UDP kept', { containers: [{ name: 'c', ports: [{ containerPort: 53, protocol: 'UDP' }] }] }, 'spec.containers[0].ports[0].protocol', 'UDP'],
    ['ephemeral container port protocol', { ephemeralContainers: [{ name: 'd', ports: [{ containerPort: 80 }] }] }, 'spec.ephemeralContainers[0].ports[0].protocol', 'TCP'],
    ['no hostPort without hostNetwork', { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, 'spec.containers[0].ports[0].hostPort', undefined],
    ['hostNetwork: hostPort is the containerPort', { hostNetwork: true, containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, 'spec.containers[0].ports[0].hostPort', 80],
    ['hostNetwork: init container hostPort', { hostNetwork: true, initContainers: [{ name: 'i', ports: [{ containerPort: 81 }] }] }, 'spec.initContainers[0].ports[0].hostPort', 81],
    ['hostNetwork: a given hostPort is kept', { hostNetwork: true, containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }] }] }, 'spec.containers[0].ports[0].hostPort', 8080],
    [
      'requests copied from limits where missing',
      { containers: [{ name: 'c', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }] },
      'spec.containers[0].resources.requests',
      { cpu: '500m', memory: '1Gi' },
    ],
    ['requests created from limits', { containers: [{ name: 'c', resources: { limits: { cpu: 2 } } }] }, 'spec.containers[0].resources.requests', { cpu: 2 }],
    ['init container requests from limits', { initContainers: [{ name: 'i', resources: { limits: { memory: '64Mi' } } }] }, 'spec.initContainers[0].resources.requests', { memory: '64Mi' }],
    ['ephemeral containers get no requests (as upstream)', { ephemeralContainers: [{ name: 'd', resources: { limits: { cpu: '1' } } }] }, 'spec.ephemeralContainers[0].resources.requests', undefined],
    ['no limits, no requests', { containers: [{ name: 'c', resources: {} }] }, 'spec.containers[0].resources', {}],
    [
      'probe timings',
      { containers: [{ name: 'c', livenessProbe: { exec: { command: ['true'] } } }] },
      'spec.containers[0].livenessProbe',
      { exec: { command: ['true'] }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    ],
    [
      'probe timings kept, 0 counts as unset',
      { containers: [{ name: 'c', readinessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 5, periodSeconds: 0, successThreshold: 2, failureThreshold: 7, initialDelaySeconds: 3 } }] },
      'spec.containers[0].readinessProbe',
      { tcpSocket: { port: 80 }, timeoutSeconds: 5, periodSeconds: 10, successThreshold: 2, failureThreshold: 7, initialDelaySeconds: 3 },
    ],
    ['probe httpGet path and scheme', { containers: [{ name: 'c', startupProbe: { httpGet: { port: 'http' } } }] }, 'spec.containers[0].startupProbe.httpGet', { port: 'http', path: '/', scheme: 'HTTP' }],
    ['probe httpGet kept', { containers: [{ name: 'c', livenessProbe: { httpGet: { port: 443, path: '/healthz', scheme: 'HTTPS' } } }] }, 'spec.containers[0].livenessProbe.httpGet', { port: 443, path: '/healthz', scheme: 'HTTPS' }],
    ['probe grpc service ""', { containers: [{ name: 'c', livenessProbe: { grpc: { port: 9000 } } }] }, 'spec.containers[0].livenessProbe.grpc', { port: 9000, service: '' }],
    ['ephemeral container probe', { ephemeralContainers: [{ name: 'd', readinessProbe: { exec: { command: ['x'] } } }] }, 'spec.ephemeralContainers[0].readinessProbe.periodSeconds', 10],
    ['preStop httpGet', { containers: [{ name: 'c', lifecycle: { preStop: { httpGet: { port: 80 } } } }] }, 'spec.containers[0].lifecycle.preStop.httpGet', { port: 80, path: '/', scheme: 'HTTP' }],
    ['postStart httpGet', { containers: [{ name: 'c', lifecycle: { postStart: { httpGet: { port: 80, path: '/x' } } } }] }, 'spec.containers[0].lifecycle.postStart.httpGet.scheme', 'HTTP'],
    ['env fieldRef apiVersion', { containers: [{ name: 'c', env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }] }, 'spec.containers[0].env[0].valueFrom.fieldRef', { apiVersion: 'v1', fieldPath: 'metadata.name' }],
    ['emptyDir gets nothing', { volumes: [{ name: 'v', emptyDir: {} }] }, 'spec.volumes[0]', { name: 'v', emptyDir: {} }],
    ['a volume without a source is an emptyDir', { volumes: [{ name: 'v' }] }, 'spec.volumes[0]', { name: 'v', emptyDir: {} }],
    ['hostPath type ""', { volumes: [{ name: 'v', hostPath: { path: '/var/log' } }] }, 'spec.volumes[0].hostPath', { path: '/var/log', type: '' }],
    ['hostPath type kept', { volumes: [{ name: 'v', hostPath: { path: '/d', type: 'Directory' } }] }, 'spec.volumes[0].hostPath.type', 'Directory'],
    ['configMap defaultMode 420', { volumes: [{ name: 'v', configMap: { name: 'cm' } }] }, 'spec.volumes[0].configMap', { name: 'cm', defaultMode: 420 }],
    ['configMap defaultMode kept', { volumes: [{ name: 'v', configMap: { name: 'cm', defaultMode: 256 } }] }, 'spec.volumes[0].configMap.defaultMode', 256],
    ['secret defaultMode 420', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }, 'spec.volumes[0].secret', { secretName: 's', defaultMode: 420 }],
    ['projected defaultMode 420', { volumes: [{ name: 'v', projected: { sources: [] } }] }, 'spec.volumes[0].projected', { sources: [], defaultMode: 420 }],
    ['downwardAPI defaultMode 420', { volumes: [{ name: 'v', downwardAPI: { items: [] } }] }, 'spec.volumes[0].downwardAPI.defaultMode', 420],
    ['downwardAPI item fieldRef apiVersion', { volumes: [{ name: 'v', downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } }] }, 'spec.volumes[0].downwardAPI.items[0].fieldRef.apiVersion', 'v1'],
    [
      'projected service account token expirationSeconds 3600',
      { volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] },
      'spec.volumes[0].projected.sources[0].serviceAccountToken',
      { path: 'token', expirationSeconds: 3600 },
    ],
    [
      'projected downwardAPI fieldRef apiVersion',
      { volumes: [{ name: 'v', projected: { sources: [{ downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.namespace' } }] } }] } }] },
      'spec.volumes[0].projected.sources[0].downwardAPI.items[0].fieldRef.apiVersion',
      'v1',
    ],
    ['ephemeral claim volumeMode Filesystem', { volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } } }] }, 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.volumeMode', 'Filesystem'],
    ['rbd pool, user and keyring', { volumes: [{ name: 'v', rbd: { monitors: ['m'], image: 'i', pool: '' } }] }, 'spec.volumes[0].rbd', { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' }],
    ['azureDisk pointer defaults', { volumes: [{ name: 'v', azureDisk: { diskName: 'd', diskURI: 'u' } }] }, 'spec.volumes[0].azureDisk', { diskName: 'd', diskURI: 'u', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' }],
  ])('%s', (_name, spec, path, want) => {
    expect(at(decodePod(podJson(spec)), path)).toEqual(want);
  });

  test.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['docker.io/library/nginx', 'Always'],
    ['registry.local:5000/team/app', 'Always'],
    ['nginx:1.25', 'IfNotPresent'],
    ['registry.local:5000/team/app:v2', 'IfNotPresent'],
    [`nginx@${DIGEST}`, 'IfNotPresent'],
    [`nginx:latest@${DIGEST}`, 'Always'],
    [`nginx:1.25@${DIGEST}`, 'IfNotPresent'],
    ['Nginx', 'IfNotPresent'], // not a valid reference: no tag is found
    [`nginx@sha256:${'a'.repeat(63)}`, 'IfNotPresent'],
    ['', 'IfNotPresent'],
  ])('image %p gets imagePullPolicy %s', (image, policy) => {
    expect(at(decodePod(podJson({ containers: [{ name: 'c', image }] })), 'spec.containers[0].imagePullPolicy')).toBe(policy);
  });

  test.each([
    ['nginx', 'latest'],
    ['localhost:5000/a/b:1.0', '1.0'],
    [`a@${DIGEST}`, ''],
    [`a@sha512:${'b'.repeat(128)}`, ''],
    ['a/b:c/d', ''],
    ['a'.repeat(64), ''],
  ])('imageTag(%p) is %p', (image, tag) => expect(imageTag(image)).toBe(tag));

  test('a pod without a spec gets the spec defaults', () => {
    const got = decode(pod, '{"metadata":{"name":"p"}}', 'Strict').object;
    expect(got.spec).toEqual({ enableServiceLinks: true, dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler' });
  });

  test('null list items are skipped, not defaulted', () => {
    const got = decodePod(podJson({ containers: [null, { name: 'c', ports: [null] }], volumes: [null] }));
    expect(at(got, 'spec.containers')).toEqual([null, { name: 'c', ports: [null], imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }]);
  });

  test('status is left as sent', () => {
    const status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-01-02T03:04:05Z' }],
      hostIPs: [{ ip: '10.0.0.1' }],
      podIPs: [{ ip: '10.1.0.5' }],
      startTime: '2025-01-02T03:04:00Z',
      containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'nginx:1.25', imageID: 'docker.io/library/nginx@' + DIGEST, state: { running: { startedAt: '2025-01-02T03:04:01Z' } } }],
      qosClass: 'BestEffort',
    };
    expect(decodePod(podJson({}, { status })).status).toEqual(status);
  });
});

describe('node defaults', () => {
  test.each<[string, Json, unknown]>([
    ['allocatable is the capacity when unset', { capacity: { cpu: '4', memory: '8Gi', pods: '110' } }, { cpu: '4', memory: '8Gi', pods: '110' }],
    ['allocatable kept', { capacity: { cpu: '4' }, allocatable: { cpu: '3800m' } }, { cpu: '3800m' }],
    ['no capacity, no allocatable', { phase: 'Running' }, undefined],
  ])('%s', (_name, status, allocatable) => {
    const got = decode(node, JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status }), 'Strict').object;
    expect(got.status?.allocatable).toEqual(allocatable);
  });

  test('allocatable is a copy, not the capacity object', () => {
    const got = decode(node, '{"metadata":{"name":"n"},"status":{"capacity":{"cpu":"4"}}}', 'Strict').object;
    got.status!.capacity!.cpu = '8';
    expect(got.status!.allocatable).toEqual({ cpu: '4' });
  });
});

describe('strict decoding', () => {
  const unknown = (path: string) => `Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "${path}"`;
  test.each<[string, Json, Json, string]>([
    ['a misspelled container field', { containers: [{ name: 'c', imagee: 'nginx' }] }, {}, unknown('spec.containers[0].imagee')],
    ['the Go name of an inline struct', { volumes: [{ name: 'v', volumeSource: { emptyDir: {} } }] }, {}, unknown('spec.volumes[0].volumeSource')],
    ['inside a volume source', { volumes: [{ name: 'v', configMap: { nam: 'cm' } }] }, {}, unknown('spec.volumes[0].configMap.nam')],
    ['inside a probe handler', { containers: [{ name: 'c', livenessProbe: { httpGet: { port: 80, paht: '/' } } }] }, {}, unknown('spec.containers[0].livenessProbe.httpGet.paht')],
    ['a probe with its Go handler name', { containers: [{ name: 'c', livenessProbe: { handler: {} } }] }, {}, unknown('spec.containers[0].livenessProbe.handler')],
    ['an ephemeral container field', { ephemeralContainers: [{ name: 'd', targetContainer: 'c' }] }, {}, unknown('spec.ephemeralContainers[0].targetContainer')],
    ['a key selector', { containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k', optinal: true } } }] }] }, {}, unknown('spec.containers[0].env[0].valueFrom.secretKeyRef.optinal')],
    ['an affinity term', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpression: [] }] } } } }, {}, unknown('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpression')],
    ['a status field', {}, { status: { containerStatuses: [{ name: 'c', state: { running: { started: 'x' } } }] } }, unknown('status.containerStatuses[0].state.running.started')],
    ['a field newer than 1.33', { hostnameOverride: 'h' }, {}, unknown('spec.hostnameOverride')],
  ])('%s', (_name, spec, extra, message) => {
    expect(() => decode(pod, podJson(spec, extra), 'Strict')).toThrow(message);
  });

  test('a wrong type names the Go field path', () => {
    expect(() => decode(pod, podJson({ containers: [{ name: 'c', ports: [{ containerPort: '80' }] }] }), 'Strict')).toThrow(
      'json: cannot unmarshal string into Go struct field Pod.spec.containers[0].ports[0].containerPort of type int32',
    );
  });

  test('an unknown node field', () => {
    expect(() => decode(node, '{"metadata":{"name":"n"},"status":{"nodeInfo":{"os":"linux"}}}', 'Strict')).toThrow('Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "status.nodeInfo.os"');
  });

  test('a pod using every part of the schema decodes strictly with no warnings', () => {
    const ref = { name: 'x' };
    const probe = { httpGet: { port: 8080, path: '/h', host: 'h', scheme: 'HTTP', httpHeaders: [{ name: 'a', value: 'b' }] }, initialDelaySeconds: 1, timeoutSeconds: 1, periodSeconds: 1, successThreshold: 1, failureThreshold: 1, terminationGracePeriodSeconds: 5 };
    const container = {
      name: 'c',
      image: 'nginx',
      command: ['a'],
      args: ['b'],
      workingDir: '/',
      ports: [{ name: 'http', hostPort: 80, containerPort: 80, protocol: 'TCP', hostIP: '0.0.0.0' }],
      envFrom: [{ prefix: 'P_', configMapRef: { name: 'cm', optional: true } }, { secretRef: { name: 's', optional: false } }],
      env: [
        { name: 'A', value: 'a' },
        { name: 'B', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        { name: 'C', valueFrom: { resourceFieldRef: { containerName: 'c', resource: 'limits.cpu', divisor: '1m' } } },
        { name: 'D', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: true } } },
        { name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
      resources: { limits: { cpu: '1', memory: 1024 }, requests: { cpu: '100m' }, claims: [{ name: 'gpu', request: 'r' }] },
      resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
      volumeMounts: [{ name: 'v', readOnly: true, recursiveReadOnly: 'IfPossible', mountPath: '/v', subPath: 's', mountPropagation: 'None' }, { name: 'w', mountPath: '/w', subPathExpr: '$(A)' }],
      volumeDevices: [{ name: 'b', devicePath: '/dev/b' }],
      livenessProbe: probe,
      readinessProbe: { exec: { command: ['true'] } },
      startupProbe: { grpc: { port: 9000, service: 's' } },
      lifecycle: { postStart: { exec: { command: ['x'] } }, preStop: { sleep: { seconds: 5 } }, stopSignal: 'SIGTERM' },
      terminationMessagePath: '/t',
      terminationMessagePolicy: 'FallbackToLogsOnError',
      imagePullPolicy: 'Always',
      securityContext: {
        capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
        privileged: false,
        seLinuxOptions: { user: 'u', role: 'r', type: 't', level: 'l' },
        windowsOptions: { gmsaCredentialSpecName: 'g', gmsaCredentialSpec: 's', runAsUserName: 'u', hostProcess: false },
        runAsUser: 1,
        runAsGroup: 2,
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        procMount: 'Default',
        seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' },
        appArmorProfile: { type: 'RuntimeDefault' },
      },
      stdin: true,
      stdinOnce: true,
      tty: true,
    };
    const term = { matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] };
    const podTerm = { labelSelector: { matchLabels: { a: 'b' } }, namespaces: ['ns'], topologyKey: 'zone', namespaceSelector: {}, matchLabelKeys: ['x'], mismatchLabelKeys: ['y'] };
    const spec = {
      volumes: [
        { name: 'a', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
        { name: 'b', hostPath: { path: '/p', type: 'Directory' } },
        { name: 'c', configMap: { name: 'cm', items: [{ key: 'k', path: 'p', mode: 256 }], defaultMode: 420, optional: true } },
        { name: 'd', secret: { secretName: 's', items: [{ key: 'k', path: 'p' }], defaultMode: 256, optional: false } },
        {
          name: 'e',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { audience: 'api', expirationSeconds: 600, path: 't' } },
              { configMap: { name: 'cm', items: [{ key: 'k', path: 'p' }], optional: true } },
              { secret: { name: 's', optional: true } },
              { downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'c', resourceFieldRef: { containerName: 'c', resource: 'limits.cpu' }, mode: 256 }] } },
              { clusterTrustBundle: { signerName: 'example.com/s', labelSelector: { matchLabels: { a: 'b' } }, optional: true, path: 'ca.pem' } },
            ],
          },
        },
        { name: 'f', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }], defaultMode: 292 } },
        { name: 'g', persistentVolumeClaim: { claimName: 'pvc', readOnly: true } },
        { name: 'h', nfs: { server: 's', path: '/e', readOnly: true } },
        { name: 'i', csi: { driver: 'd', readOnly: true, fsType: 'ext4', volumeAttributes: { a: 'b' }, nodePublishSecretRef: ref } },
        {
          name: 'j',
          ephemeral: {
            volumeClaimTemplate: {
              metadata: { labels: { a: 'b' } },
              spec: {
                accessModes: ['ReadWriteOnce'],
                selector: { matchLabels: { a: 'b' } },
                resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } },
                volumeName: 'pv',
                storageClassName: 'fast',
                volumeMode: 'Block',
                dataSource: { kind: 'VolumeSnapshot', name: 'snap', apiGroup: 'snapshot.storage.k8s.io' },
                dataSourceRef: { kind: 'VolumeSnapshot', name: 'snap', apiGroup: 'snapshot.storage.k8s.io', namespace: 'other' },
                volumeAttributesClassName: 'gold',
              },
            },
          },
        },
        { name: 'k', image: { reference: 'quay.io/x/y:1', pullPolicy: 'IfNotPresent' } },
        { name: 'l', gitRepo: { repository: 'https://example.com/r.git', revision: 'abc', directory: '.' } },
        { name: 'm', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.x', lun: 0, portals: ['10.0.0.2'], chapAuthDiscovery: true, chapAuthSession: true, secretRef: ref, initiatorName: 'i' } },
        { name: 'n', cephfs: { monitors: ['m'], path: '/', user: 'u', secretFile: 'f', secretRef: ref, readOnly: true } },
        { name: 'o', fc: { targetWWNs: ['w'], lun: 1, fsType: 'ext4', readOnly: true } },
        { name: 'q', scaleIO: { gateway: 'g', system: 's', secretRef: ref, sslEnabled: true, protectionDomain: 'd', storagePool: 'p', volumeName: 'v' } },
        { name: 'r', flexVolume: { driver: 'd', secretRef: ref, options: { a: 'b' } } },
      ],
      initContainers: [{ ...container, name: 'init', restartPolicy: 'Always' }],
      containers: [container],
      ephemeralContainers: [{ ...container, name: 'debug', targetContainerName: 'c' }],
      restartPolicy: 'OnFailure',
      terminationGracePeriodSeconds: 10,
      activeDeadlineSeconds: 100,
      dnsPolicy: 'None',
      nodeSelector: { disk: 'ssd' },
      serviceAccountName: 'sa',
      serviceAccount: 'sa',
      automountServiceAccountToken: false,
      nodeName: 'n1',
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      shareProcessNamespace: true,
      securityContext: {
        seLinuxOptions: { level: 's0' },
        windowsOptions: { runAsUserName: 'u' },
        runAsUser: 1,
        runAsGroup: 1,
        runAsNonRoot: true,
        supplementalGroups: [5, 6],
        supplementalGroupsPolicy: 'Strict',
        fsGroup: 7,
        sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
        fsGroupChangePolicy: 'OnRootMismatch',
        seccompProfile: { type: 'RuntimeDefault' },
        appArmorProfile: { type: 'Localhost', localhostProfile: 'p' },
        seLinuxChangePolicy: 'MountOption',
      },
      imagePullSecrets: [{ name: 'reg' }],
      hostname: 'h',
      subdomain: 's',
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] }, preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: term }] },
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [podTerm], preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: podTerm }] },
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [podTerm], preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: podTerm }] },
      },
      schedulerName: 'custom',
      tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 60 }],
      hostAliases: [{ ip: '127.0.0.1', hostnames: ['foo.local'] }],
      priorityClassName: 'high',
      priority: 1000,
      dnsConfig: { nameservers: ['1.1.1.1'], searches: ['svc.local'], options: [{ name: 'ndots', value: '2' }] },
      readinessGates: [{ conditionType: 'example.com/ready' }],
      runtimeClassName: 'gvisor',
      enableServiceLinks: false,
      preemptionPolicy: 'Never',
      overhead: { cpu: '250m' },
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { a: 'b' } }, minDomains: 2, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore', matchLabelKeys: ['pod-template-hash'] },
      ],
      setHostnameAsFQDN: true,
      os: { name: 'linux' },
      hostUsers: false,
      schedulingGates: [{ name: 'wait' }],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }, { name: 'fpga', resourceClaimName: 'fpga-claim' }],
      resources: { limits: { cpu: '2' }, requests: { cpu: '1' } },
    };
    const containerStatus = {
      name: 'c',
      state: { terminated: { exitCode: 1, signal: 9, reason: 'Error', message: 'm', startedAt: '2025-01-01T00:00:00Z', finishedAt: '2025-01-01T00:01:00Z', containerID: 'containerd://1' } },
      lastState: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } },
      ready: false,
      restartCount: 3,
      image: 'nginx:1.25',
      imageID: 'sha256:1',
      containerID: 'containerd://1',
      started: false,
      allocatedResources: { cpu: '1' },
      resources: { limits: { cpu: '1' } },
      volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true, recursiveReadOnly: 'Enabled' }],
      user: { linux: { uid: 1, gid: 2, supplementalGroups: [3] } },
      allocatedResourcesStatus: [{ name: 'claim:gpu', resources: [{ resourceID: 'dev0', health: 'Healthy' }] }],
      stopSignal: 'SIGTERM',
    };
    const status = {
      observedGeneration: 2,
      phase: 'Running',
      conditions: [{ type: 'Ready', observedGeneration: 2, status: 'True', lastProbeTime: null, lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'r', message: 'm' }],
      message: 'm',
      reason: 'r',
      nominatedNodeName: 'n2',
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: '10.1.0.1',
      podIPs: [{ ip: '10.1.0.1' }, { ip: 'fd00::1' }],
      startTime: '2025-01-01T00:00:00Z',
      initContainerStatuses: [containerStatus],
      containerStatuses: [{ ...containerStatus, state: { running: { startedAt: '2025-01-01T00:00:00Z' } } }],
      qosClass: 'Burstable',
      ephemeralContainerStatuses: [containerStatus],
      resize: 'InProgress',
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'p-gpu-abc' }],
    };
    const got = decode(pod, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec, status }), 'Strict');
    expect(got.warnings).toEqual([]);
    expect(got.object.status).toEqual(status);
  });

  test('a node using every part of the schema decodes strictly with no warnings', () => {
    const source = { configMap: { namespace: 'kube-system', name: 'kc', uid: 'u', resourceVersion: '1', kubeletConfigKey: 'kubelet' } };
    const body = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n' },
      spec: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24', 'fd00::/64'], providerID: 'aws:///i-1', unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoExecute', timeAdded: '2025-01-01T00:00:00Z' }], configSource: source, externalID: 'x' },
      status: {
        capacity: { cpu: '4' },
        allocatable: { cpu: '4' },
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2025-01-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'KubeletReady', message: 'ok' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1', osImage: 'Debian', containerRuntimeVersion: 'containerd://2.0', kubeletVersion: 'v1.33.0',
          kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64', swap: { capacity: 0 },
        },
        images: [{ names: ['nginx:1.25'], sizeBytes: 1000 }],
        volumesInUse: ['kubernetes.io/csi/d^v'],
        volumesAttached: [{ name: 'kubernetes.io/csi/d^v', devicePath: '' }],
        config: { assigned: source, active: source, lastKnownGood: source, error: '' },
        runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: true } }],
        features: { supplementalGroupsPolicy: true },
      },
    };
    const got = decode(node, JSON.stringify(body), 'Strict');
    expect(got.warnings).toEqual([]);
    expect(got.object).toEqual(body);
  });
});

describe('patch strategies', () => {
  test.each<[string, typeof pod | typeof node, string[], unknown]>([
    ['pod containers merge by name', pod, ['spec', 'containers'], { type: 'merge', key: 'name' }],
    ['pod init containers merge by name', pod, ['spec', 'initContainers'], { type: 'merge', key: 'name' }],
    ['pod ephemeral containers merge by name', pod, ['spec', 'ephemeralContainers'], { type: 'merge', key: 'name' }],
    ['volume mounts merge by mountPath', pod, ['spec', 'containers', 'volumeMounts'], { type: 'merge', key: 'mountPath' }],
    ['ports merge by containerPort', pod, ['spec', 'containers', 'ports'], { type: 'merge', key: 'containerPort' }],
    ['env merges by name', pod, ['spec', 'containers', 'env'], { type: 'merge', key: 'name' }],
    ['ephemeral container env merges by name', pod, ['spec', 'ephemeralContainers', 'env'], { type: 'merge', key: 'name' }],
    ['volume devices merge by devicePath', pod, ['spec', 'containers', 'volumeDevices'], { type: 'merge', key: 'devicePath' }],
    ['imagePullSecrets merge by name', pod, ['spec', 'imagePullSecrets'], { type: 'merge', key: 'name' }],
    ['hostAliases merge by ip', pod, ['spec', 'hostAliases'], { type: 'merge', key: 'ip' }],
    ['topology spread constraints merge by topologyKey', pod, ['spec', 'topologySpreadConstraints'], { type: 'merge', key: 'topologyKey' }],
    ['scheduling gates merge by name', pod, ['spec', 'schedulingGates'], { type: 'merge', key: 'name' }],
    ['pod conditions merge by type', pod, ['status', 'conditions'], { type: 'merge', key: 'type' }],
    ['pod IPs merge by ip', pod, ['status', 'podIPs'], { type: 'merge', key: 'ip' }],
    ['host IPs merge by ip (atomic for apply)', pod, ['status', 'hostIPs'], { type: 'merge', key: 'ip' }],
    ['container status volume mounts merge by mountPath', pod, ['status', 'containerStatuses', 'volumeMounts'], { type: 'merge', key: 'mountPath' }],
    ['tolerations are replaced', pod, ['spec', 'tolerations'], { type: 'replace' }],
    ['container statuses are replaced', pod, ['status', 'containerStatuses'], { type: 'replace' }],
    ['command is replaced', pod, ['spec', 'containers', 'command'], { type: 'replace' }],
    ['envFrom is replaced', pod, ['spec', 'containers', 'envFrom'], { type: 'replace' }],
    ['resource claims of a container are replaced (listType=map, no patchStrategy)', pod, ['spec', 'containers', 'resources', 'claims'], { type: 'replace' }],
    ['node selector terms are replaced', pod, ['spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'], { type: 'replace' }],
    ['node taints are replaced', node, ['spec', 'taints'], { type: 'replace' }],
    ['node podCIDRs merge as a set', node, ['spec', 'podCIDRs'], { type: 'set' }],
    ['node addresses merge by type', node, ['status', 'addresses'], { type: 'merge', key: 'type' }],
    ['node conditions merge by type', node, ['status', 'conditions'], { type: 'merge', key: 'type' }],
    ['node images are replaced', node, ['status', 'images'], { type: 'replace' }],
  ])('%s', (_name, def, path, want) => expect(patchStrategyAt(def, path)).toEqual(want));

  test.each([
    [['spec', 'volumes'], 'merge,retainKeys', 'name'],
    [['spec', 'resourceClaims'], 'merge,retainKeys', 'name'],
    [['status', 'resourceClaimStatuses'], 'merge,retainKeys', 'name'],
  ])('%j carries upstream patch strategy %s by %s', (path, strategy, key) => {
    let schema = pod.schema as unknown as Json;
    for (const field of path) schema = (schema.properties as Record<string, Json>)[field];
    expect(schema).toMatchObject({ 'x-kubernetes-patch-strategy': strategy, 'x-kubernetes-patch-merge-key': key, 'x-kubernetes-list-map-keys': [key] });
  });

  test('ports and topology spread constraints list their full map keys for server-side apply', () => {
    const spec = (pod.schema.properties.spec as unknown as { properties: Record<string, Json & { items: { properties: Record<string, Json> } }> }).properties;
    expect(spec.containers.items.properties.ports['x-kubernetes-list-map-keys']).toEqual(['containerPort', 'protocol']);
    expect(spec.topologySpreadConstraints['x-kubernetes-list-map-keys']).toEqual(['topologyKey', 'whenUnsatisfiable']);
  });
});

describe('protobuf', () => {
  // Hand-built protobuf, field by field.
  const uvarint = (n: number): Buffer => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
    out.push(n);
    return Buffer.from(out);
  };
  const tag = (field: number, wire: number) => uvarint(field * 8 + wire);
  const str = (field: number, s: string) => Buffer.concat([tag(field, 2), uvarint(Buffer.byteLength(s)), Buffer.from(s)]);
  const msg = (field: number, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([tag(field, 2), uvarint(body.length), body]);
  };
  const varint = (field: number, n: number) => Buffer.concat([tag(field, 0), uvarint(n)]);
  const envelope = (kind: string, raw: Buffer) => Buffer.concat([Buffer.from('k8s\0', 'binary'), msg(1, str(1, 'v1'), str(2, kind)), msg(2, raw)]);

  test('a minimal pod decodes', () => {
    // Pod{metadata{name "pb", namespace "ns"}, spec{containers[{name "c", image "nginx", ports[{containerPort 80}],
    //   resources{limits{"cpu": Quantity{"1"}}}}], terminationGracePeriodSeconds 30},
    //   status{phase "Pending", hostIPs[{ip}] (field 16: a two-byte tag), startTime{seconds}}}
    const container = Buffer.concat([str(1, 'c'), str(2, 'nginx'), msg(6, varint(3, 80)), msg(8, msg(1, str(1, 'cpu'), msg(2, str(1, '1'))))]);
    const raw = Buffer.concat([
      msg(1, str(1, 'pb'), str(3, 'ns')),
      msg(2, msg(2, container), varint(4, 30)),
      msg(3, str(1, 'Pending'), msg(16, str(1, '10.0.0.1')), msg(7, varint(1, 1735689600))),
    ]);
    expect(decodeProtobuf(pod, envelope('Pod', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pb', namespace: 'ns' },
      spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }], terminationGracePeriodSeconds: 30 },
      status: { phase: 'Pending', hostIPs: [{ ip: '10.0.0.1' }], startTime: '2025-01-01T00:00:00Z' },
    });
  });

  test('the decoded pod then takes the JSON defaults', () => {
    const raw = Buffer.concat([msg(1, str(1, 'pb')), msg(2, msg(2, str(1, 'c'), str(2, 'nginx')))]);
    const decoded = decode(pod, JSON.stringify(decodeProtobuf(pod, envelope('Pod', raw))), 'Strict').object;
    expect(decoded.spec?.containers?.[0]).toEqual({ name: 'c', image: 'nginx', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
  });

  test('a node decodes: taints, addresses and capacity', () => {
    const raw = Buffer.concat([
      msg(1, str(1, 'n1')),
      msg(2, str(1, '10.1.0.0/24'), msg(5, str(1, 'k'), str(3, 'NoSchedule'))),
      msg(3, msg(1, str(1, 'pods'), msg(2, str(1, '110'))), msg(5, str(1, 'InternalIP'), str(2, '10.0.0.1')), msg(6, msg(1, varint(1, 10250)))),
    ]);
    expect(decodeProtobuf(node, envelope('Node', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      spec: { podCIDR: '10.1.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: { capacity: { pods: '110' }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } },
    });
  });

  test('a pod body is not taken as a node', () => {
    expect(() => decodeProtobuf(node, envelope('Pod', Buffer.alloc(0)))).toThrow('the kind in the data (Pod) does not match the expected kind (Node)');
  });
});
