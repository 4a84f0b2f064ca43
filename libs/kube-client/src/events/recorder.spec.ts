import { COMBINED_MESSAGE_PREFIX, createEventRecorder, MemoryEventSink, statusError } from './index';
import type { EventRecorderOptions, ObjectReference } from './index';

const T0 = Date.parse('2025-06-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z');
const hexNanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString(16);

const pod: ObjectReference = { kind: 'Pod', namespace: 'web', name: 'nginx-1', uid: 'pod-uid-1', apiVersion: 'v1' };
const container: ObjectReference = { ...pod, fieldPath: 'spec.containers{nginx}' };
const otherPod: ObjectReference = { ...pod, name: 'nginx-2', uid: 'pod-uid-2' };
// The kubelet's reference to its node: no namespace, the node name as uid.
const node: ObjectReference = { kind: 'Node', name: 'node-1', uid: 'node-1' };

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:6443'), { code: 'ECONNREFUSED' });

/** A recorder on a MemoryEventSink with a hand-moved clock, a recorded log and sleeps that only record their length. */
function setup(opts: EventRecorderOptions = {}) {
  let nowMs = T0;
  const sink = new MemoryEventSink();
  const logs: string[] = [];
  const delays: number[] = [];
  const recorder = createEventRecorder(sink, { component: 'kubelet', host: 'node-1' }, {
    now: () => new Date(nowMs),
    log: (msg) => logs.push(msg),
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...opts,
  });
  const advance = (seconds: number) => {
    nowMs += seconds * 1000;
  };
  const calls = () => sink.calls.map((c) => [c.verb, c.name, c.body] as const);
  return { sink, logs, delays, recorder, advance, calls };
}

describe('a new event', () => {
  test('is written as client-go makeEvent builds it', async () => {
    const { sink, recorder } = setup();
    recorder.event(container, 'Normal', 'Pulling', 'Pulling image "nginx:1.27"');
    await recorder.flush();
    expect(sink.calls).toEqual([
      {
        verb: 'create',
        namespace: 'web',
        name: `nginx-1.${hexNanos(T0)}`,
        body: {
          kind: 'Event',
          apiVersion: 'v1',
          metadata: { name: `nginx-1.${hexNanos(T0)}`, namespace: 'web' },
          involvedObject: { kind: 'Pod', namespace: 'web', name: 'nginx-1', uid: 'pod-uid-1', apiVersion: 'v1', fieldPath: 'spec.containers{nginx}' },
          reason: 'Pulling',
          message: 'Pulling image "nginx:1.27"',
          source: { component: 'kubelet', host: 'node-1' },
          firstTimestamp: '2025-06-01T10:00:00Z',
          lastTimestamp: '2025-06-01T10:00:00Z',
          count: 1,
          type: 'Normal',
          eventTime: null,
          reportingComponent: 'kubelet',
          reportingInstance: 'node-1',
        },
      },
    ]);
  });

  test.each<[string, ObjectReference, string]>([
    ['a namespaced object', pod, 'web'],
    ['a cluster-scoped object (Node)', node, 'default'],
  ])('about %s goes in namespace %j', async (_what, ref, namespace) => {
    const { sink, recorder } = setup();
    recorder.event(ref, 'Normal', 'Starting', 'Starting kubelet.');
    await recorder.flush();
    expect(sink.calls.map((c) => [c.namespace, c.name])).toEqual([[namespace, `${ref.name}.${hexNanos(T0)}`]]);
  });

  test('timestamps are whole seconds; the name keeps the milliseconds, and two in one millisecond still differ', async () => {
    const { sink, recorder } = setup({ now: () => new Date(T0 + 1234) });
    recorder.event(container, 'Normal', 'Created', 'Created container nginx');
    recorder.event(container, 'Normal', 'Started', 'Started container nginx');
    await recorder.flush();
    const ns = BigInt(T0 + 1234) * 1_000_000n;
    expect(sink.calls.map((c) => c.name)).toEqual([`nginx-1.${ns.toString(16)}`, `nginx-1.${(ns + 1n).toString(16)}`]);
    expect(sink.events.map((e) => e.firstTimestamp)).toEqual(['2025-06-01T10:00:01Z', '2025-06-01T10:00:01Z']);
  });

  test('an object name that makes no valid event name gets a UUID instead (kubernetes#127594)', async () => {
    const { sink, recorder } = setup();
    recorder.event({ kind: 'Widget', namespace: 'web', name: 'Not_A_DNS_Name' }, 'Normal', 'Seen', 'seen');
    await recorder.flush();
    expect(sink.calls[0].name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});

describe('repeats', () => {
  test('of an identical event patch the first one with a rising count', async () => {
    const { sink, recorder, advance, calls } = setup();
    const name = `nginx-1.${hexNanos(T0)}`;
    for (let i = 0; i < 3; i++) {
      recorder.event(container, 'Warning', 'BackOff', 'Back-off restarting failed container nginx');
      await recorder.flush();
      advance(10);
    }
    expect(calls().map(([verb, n, body]) => [verb, n, verb === 'patch' ? body : undefined])).toEqual([
      ['create', name, undefined],
      ['patch', name, { count: 2, lastTimestamp: at(10), message: 'Back-off restarting failed container nginx' }],
      ['patch', name, { count: 3, lastTimestamp: at(20), message: 'Back-off restarting failed container nginx' }],
    ]);
    expect(sink.get('web', name)).toMatchObject({ count: 3, firstTimestamp: at(0), lastTimestamp: at(20) });
  });

  test.each<[string, ObjectReference, string]>([
    ['another message', container, 'Back-off pulling image "nginx"'],
    ['another field path', { ...pod, fieldPath: 'spec.containers{sidecar}' }, 'Back-off restarting failed container nginx'],
  ])('differing in %s are new events', async (_what, ref, message) => {
    const { recorder, calls } = setup();
    recorder.event(container, 'Warning', 'BackOff', 'Back-off restarting failed container nginx');
    recorder.event(ref, 'Warning', 'BackOff', message);
    await recorder.flush();
    expect(calls().map(([verb]) => verb)).toEqual(['create', 'create']);
  });

  test('of an event that is gone (404 on the patch) create it again with its name, count and first timestamp', async () => {
    const { sink, recorder, advance, calls } = setup();
    const name = `nginx-1.${hexNanos(T0)}`;
    recorder.event(container, 'Warning', 'Failed', 'Error: ErrImagePull');
    await recorder.flush();
    sink.remove('web', name);
    advance(5);
    recorder.event(container, 'Warning', 'Failed', 'Error: ErrImagePull');
    await recorder.flush();
    expect(calls().map(([verb, n]) => [verb, n])).toEqual([
      ['create', name],
      ['patch', name],
      ['create', name],
    ]);
    expect(sink.get('web', name)).toMatchObject({ count: 2, firstTimestamp: at(0), lastTimestamp: at(5) });
  });
});

describe('similar events (same reason, other messages)', () => {
  const backOff = (i: number) => `Back-off ${i}`;

  test('from the 10th distinct message within 10 minutes are combined into one event', async () => {
    const { recorder, advance, calls } = setup();
    for (let i = 1; i <= 11; i++) {
      recorder.event(pod, 'Warning', 'BackOff', backOff(i));
      await recorder.flush();
      advance(30);
    }
    const writes = calls();
    expect(writes.slice(0, 9).map(([verb, , body]) => [verb, (body as { message: string }).message])).toEqual(
      Array.from({ length: 9 }, (_, i) => ['create', backOff(i + 1)]),
    );
    // Named at the same instant as the event it replaces, so one nanosecond on.
    const combinedName = `nginx-1.${(BigInt(T0 + 9 * 30_000) * 1_000_000n + 1n).toString(16)}`;
    expect(writes[9].slice(0, 2)).toEqual(['create', combinedName]);
    expect(writes[9][2]).toMatchObject({
      message: `${COMBINED_MESSAGE_PREFIX}${backOff(10)}`,
      reason: 'BackOff',
      // Upstream's combined event leaves the reporting fields empty.
      reportingComponent: '',
      reportingInstance: '',
    });
    expect(writes[10]).toEqual(['patch', combinedName, { count: 2, lastTimestamp: at(300), message: `${COMBINED_MESSAGE_PREFIX}${backOff(11)}` }]);
  });

  test('start counting again after 10 minutes without one', async () => {
    const { recorder, advance, calls } = setup();
    for (let i = 1; i <= 9; i++) recorder.event(pod, 'Warning', 'BackOff', backOff(i));
    await recorder.flush();
    advance(601);
    recorder.event(pod, 'Warning', 'BackOff', backOff(10));
    await recorder.flush();
    expect((calls()[9][2] as { message: string }).message).toBe(backOff(10));
  });
});

describe('the spam filter', () => {
  test('lets 25 events about one object through, then one per 5 minutes, while other objects go on', async () => {
    const { recorder, advance, calls } = setup();
    for (let i = 0; i < 30; i++) recorder.event(container, 'Warning', 'BackOff', 'Back-off restarting failed container nginx');
    recorder.event(otherPod, 'Warning', 'BackOff', 'Back-off restarting failed container nginx');
    await recorder.flush();
    const writes = calls();
    expect(writes.filter(([, name]) => name.startsWith('nginx-1.')).map(([verb]) => verb)).toEqual(['create', ...Array(24).fill('patch')]);
    expect(writes.filter(([, name]) => name.startsWith('nginx-2.')).map(([verb]) => verb)).toEqual(['create']);

    advance(299);
    recorder.event(container, 'Warning', 'BackOff', 'Back-off restarting failed container nginx');
    await recorder.flush();
    expect(calls()).toHaveLength(26);

    advance(1);
    recorder.event(container, 'Warning', 'BackOff', 'Back-off restarting failed container nginx');
    await recorder.flush();
    // As upstream, the dropped repeats were still counted.
    expect(calls()[26]).toEqual(['patch', `nginx-1.${hexNanos(T0)}`, expect.objectContaining({ count: 32 })]);
  });

  test('burst and rate come from the correlator options', async () => {
    const { recorder, calls } = setup({ correlator: { spamBurst: 2 } });
    for (let i = 0; i < 5; i++) recorder.event(node, 'Normal', 'NodeReady', 'Node node-1 status is now: NodeReady');
    await recorder.flush();
    expect(calls()).toHaveLength(2);
  });
});

describe('failed writes', () => {
  test('without an answer are retried, the first pause random, the later ones the full delay', async () => {
    const { sink, recorder, delays, logs } = setup();
    sink.failNext('create', connectionRefused(), connectionRefused());
    recorder.event(node, 'Normal', 'RegisteredNode', 'Node node-1 event: Registered Node node-1 in Controller');
    await recorder.flush();
    expect(sink.calls.map((c) => c.verb)).toEqual(['create', 'create', 'create']);
    expect(sink.events).toHaveLength(1);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(0);
    expect(delays[0]).toBeLessThan(10_000);
    expect(delays[1]).toBe(10_000);
    expect(logs).toEqual(['Unable to write event (may retry after sleeping)', 'Unable to write event (may retry after sleeping)']);
  });

  test('are given up after maxTries (12 by default)', async () => {
    const { sink, recorder, delays, logs } = setup();
    sink.failNext('create', ...Array.from({ length: 20 }, connectionRefused));
    recorder.event(node, 'Normal', 'NodeNotReady', 'Node node-1 status is now: NodeNotReady');
    await recorder.flush();
    expect(sink.calls).toHaveLength(12);
    expect(delays).toHaveLength(11);
    expect(logs.at(-1)).toBe('Unable to write event (retry limit exceeded!)');
  });

  test('a sink that throws instead of rejecting is retried like a lost connection', async () => {
    const delays: number[] = [];
    const throwing = () => {
      throw connectionRefused();
    };
    const recorder = createEventRecorder({ create: throwing, patch: throwing }, { component: 'kubelet' }, { log: () => undefined, maxTries: 3, sleep: async (ms) => void delays.push(ms) });
    recorder.event(node, 'Normal', 'Starting', 'Starting kubelet.');
    await recorder.flush();
    expect(delays).toHaveLength(2);
  });

  /** The shape of @cl/apimachinery's ApiError: the Status kept whole, `code` as a getter. */
  class ApiErrorLike extends Error {
    constructor(readonly status: { code: number; reason: string; details?: { causes: Array<{ reason: string }> } }) {
      super(status.reason);
    }
    get code() {
      return this.status.code;
    }
  }

  test.each<[string, unknown, string[]]>([
    ['422 Invalid', statusError(422, 'Invalid'), ['Server rejected event (will not retry!)']],
    ['403 Forbidden', statusError(403, 'Forbidden'), ['Server rejected event (will not retry!)']],
    // client-go's REST client retries these itself; the recorder does not.
    ['429 TooManyRequests', statusError(429, 'TooManyRequests'), ['Server rejected event (will not retry!)']],
    ['500 InternalError', statusError(500, 'InternalError'), ['Server rejected event (will not retry!)']],
    ['409 AlreadyExists (quietly)', statusError(409, 'AlreadyExists'), []],
    ['AlreadyExists as an ApiError (quietly)', new ApiErrorLike({ code: 409, reason: 'AlreadyExists' }), []],
    ['a terminating namespace (quietly)', new ApiErrorLike({ code: 403, reason: 'Forbidden', details: { causes: [{ reason: 'NamespaceTerminating' }] } }), []],
  ])('answered with %s are given up at once', async (_what, error, expectedLogs) => {
    const { sink, recorder, delays, logs } = setup();
    sink.failNext('create', error);
    recorder.event(pod, 'Normal', 'Scheduled', 'Successfully assigned web/nginx-1 to node-1');
    await recorder.flush();
    expect(sink.calls).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(logs).toEqual(expectedLogs);
  });

  test('a failed patch that is not a 404 is not turned into a create', async () => {
    const { sink, recorder, calls } = setup();
    recorder.event(container, 'Normal', 'Pulled', 'Container image "nginx" already present on machine');
    recorder.event(container, 'Normal', 'Pulled', 'Container image "nginx" already present on machine');
    sink.failNext('patch', statusError(422, 'Invalid'));
    await recorder.flush();
    expect(calls().map(([verb]) => verb)).toEqual(['create', 'patch']);
  });
});

describe('the queue', () => {
  test('event() returns before anything is written', async () => {
    const { sink, recorder } = setup();
    recorder.event(pod, 'Normal', 'Killing', 'Stopping container nginx');
    expect(sink.calls).toEqual([]);
    await recorder.flush();
    expect(sink.calls).toHaveLength(1);
  });

  test('drops events beyond its length with a log line', async () => {
    const { sink, recorder, logs } = setup({ queueLength: 2 });
    for (const reason of ['Pulling', 'Pulled', 'Created', 'Started']) recorder.event(container, 'Normal', reason, reason);
    await recorder.flush();
    expect(sink.events.map((e) => e.reason)).toEqual(['Pulling', 'Pulled']);
    expect(logs).toEqual(['Unable to record event: too many queued events, dropped event', 'Unable to record event: too many queued events, dropped event']);
  });

  test('drops an event of an unknown type with a log line', async () => {
    const { sink, recorder, logs } = setup();
    recorder.event(pod, 'Error' as 'Warning', 'Failed', 'oops');
    await recorder.flush();
    expect(sink.calls).toEqual([]);
    expect(logs).toEqual(['Unsupported event type']);
  });

  test('flush with nothing queued resolves', async () => {
    const { recorder } = setup();
    await expect(recorder.flush()).resolves.toBeUndefined();
  });
});

describe('stop', () => {
  test('ends a pause between tries and gives the event up', async () => {
    let paused!: () => void;
    const pausing = new Promise<void>((resolve) => (paused = resolve));
    const { sink, recorder, logs } = setup({
      sleep: () => {
        paused();
        return new Promise<void>(() => undefined);
      },
    });
    sink.failNext('create', connectionRefused());
    recorder.event(pod, 'Normal', 'Killing', 'Stopping container nginx');
    await pausing;
    await recorder.stop();
    expect(sink.calls).toHaveLength(1);
    expect(logs.at(-1)).toBe('Unable to write event (the recorder is stopped)');
  });

  test('ends the default timer too', async () => {
    let failed!: () => void;
    const firstTryFailed = new Promise<void>((resolve) => (failed = resolve));
    // An hour's pause: only the abort on stop can end it.
    const { sink, recorder } = setup({ sleep: undefined, retryDelayMs: 3_600_000, log: () => failed() });
    sink.failNext('create', connectionRefused());
    recorder.event(pod, 'Normal', 'Killing', 'Stopping container nginx');
    await firstTryFailed;
    await recorder.stop();
    expect(sink.calls).toHaveLength(1);
  });

  test('gives each queued event one try, and drops later events', async () => {
    const { sink, recorder, delays, logs } = setup();
    sink.failNext('create', connectionRefused(), connectionRefused());
    recorder.event(container, 'Normal', 'Killing', 'Stopping container nginx');
    recorder.event(container, 'Normal', 'Killing', 'Stopping container sidecar');
    recorder.event(container, 'Normal', 'Started', 'Started container nginx');
    await recorder.stop();
    expect(sink.calls).toHaveLength(3);
    expect(sink.events.map((e) => e.message)).toEqual(['Started container nginx']);
    expect(delays).toEqual([]);
    recorder.event(pod, 'Normal', 'Killing', 'too late');
    await recorder.flush();
    expect(sink.calls).toHaveLength(3);
    expect(logs.at(-1)).toBe('Unable to record event: the recorder is stopped, dropped event');
  });
});
