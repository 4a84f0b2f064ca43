import { isControllerEnabled, KNOWN_CONTROLLERS, validateControllerOptions, type ControllerOptions } from './controllers';

const base: ControllerOptions = {
  enabled: ['*'],
  nodeMonitorPeriodMs: 5000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  terminatedPodGCThreshold: 12500,
  resourceQuotaSyncPeriodMs: 30_000,
  concurrentNamespaceSyncs: 10,
  concurrentGCSyncs: 20,
  rootCAFile: '',
};

test.each<[string[], string, boolean]>([
  [['*'], 'deployment-controller', true],
  [[], 'deployment-controller', false],
  [['*', '-deployment'], 'deployment-controller', false],
  [['*', '-deployment-controller'], 'deployment-controller', false],
  [['*', '-deployment'], 'replicaset-controller', true],
  [['replicaset'], 'replicaset-controller', true],
  [['replicaset'], 'deployment-controller', false],
  // The first entry naming a controller decides, as kube-controller-manager reads the list.
  [['podgc', '-podgc'], 'pod-garbage-collector-controller', true],
  [['-nodelifecycle', '*'], 'node-lifecycle-controller', false],
  [['serviceaccount'], 'serviceaccount-controller', true],
  [['serviceaccount'], 'namespace-controller', false],
  [['*', '-garbagecollector'], 'garbage-collector-controller', false],
  [['*', '-garbagecollector'], 'resourcequota-controller', true],
])('--controllers=%j: %s enabled is %s', (enabled, name, want) => {
  expect(isControllerEnabled(name, enabled)).toBe(want);
});

test('every known controller is on by default except the token cleaner, which is named to run (as upstream)', () => {
  expect(KNOWN_CONTROLLERS.filter((n) => isControllerEnabled(n, ['*']))).toEqual(KNOWN_CONTROLLERS.filter((n) => n !== 'token-cleaner-controller'));
  expect(isControllerEnabled('token-cleaner-controller', ['*', 'tokencleaner'])).toBe(true);
});

test.each<[Partial<ControllerOptions>, string[]]>([
  [{}, []],
  [{ enabled: ['*', '-podgc', 'root-ca-cert-publisher'] }, []],
  [{ enabled: ['nope', '-gone'] }, ['--controllers: "nope" is not in the list of known controllers', '--controllers: "gone" is not in the list of known controllers']],
  [{ nodeEvictionRate: -1 }, ['--node-eviction-rate must not be negative']],
  [{ nodeMonitorGracePeriodMs: 0, nodeMonitorPeriodMs: 0 }, ['--node-monitor-grace-period must be greater than 0', '--node-monitor-period must be greater than 0']],
  [
    { resourceQuotaSyncPeriodMs: 0, concurrentNamespaceSyncs: 0, concurrentGCSyncs: 0 },
    ['--resource-quota-sync-period must be greater than 0', '--concurrent-namespace-syncs must be at least 1', '--concurrent-gc-syncs must be at least 1'],
  ],
  [{ rootCAFile: '/nonexistent/ca.crt' }, ["--root-ca-file: ENOENT: no such file or directory, open '/nonexistent/ca.crt'"]],
])('validation of %j', (change, errors) => {
  expect(validateControllerOptions({ ...base, ...change })).toEqual(errors);
});
