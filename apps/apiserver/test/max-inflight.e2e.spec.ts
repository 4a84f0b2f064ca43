// --max-requests-inflight, --max-mutating-requests-inflight and --enable-priority-and-fairness on the built server:
// a request whose body is still arriving holds its seat (it has passed the limit, as upstream's filter runs before
// the body is read), so a test can fill the server without timing anything. Over the limit: upstream's plain-text
// 429 with Retry-After: 1.
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { waitFor } from '@cl/testing';
import { httpsGet, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(120_000);

const QUIET = ['--enable-scheduler=false', '--controllers='];

/**
 * A create whose body is sent only when `finish` is called: it holds a mutating seat until then. `answered` says
 * whether the server has already answered it (a create that found the server full is answered 429 at once).
 */
function slowCreate(api: ApiserverProcess, name: string): { finish(): Promise<number>; answered(): boolean } {
  let req: ClientRequest;
  let answered = false;
  const status = new Promise<number>((resolve, reject) => {
    req = request(`${api.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', ca: api.servingCA(), headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.write('{"metadata":');
  });
  status.then(
    () => (answered = true),
    () => (answered = true),
  );
  return {
    answered: () => answered,
    finish: () => {
      req.end(`{"name":"${name}"}}`);
      return status;
    },
  };
}

const inFlight = async (api: ApiserverProcess, kind: string) => {
  const m = (await httpsGet(api, '/metrics')).body;
  return Number(new RegExp(`^apiserver_current_inflight_requests\\{request_kind="${kind}"\\} (\\d+)`, 'm').exec(m)?.[1] ?? NaN);
};

describe('without priority and fairness: one limit per kind', () => {
  let api: ApiserverProcess;
  beforeAll(async () => {
    api = await startApiserverProcess([...QUIET, '--max-requests-inflight=1', '--max-mutating-requests-inflight=1', '--enable-priority-and-fairness=false']);
  });
  afterAll(() => api?.cleanup());

  test('a second mutating request is turned away with 429 and Retry-After; read-only ones still pass; the seat comes back', async () => {
    const held = slowCreate(api, 'first');
    await waitFor(async () => (await inFlight(api, 'mutating')) === 1 || undefined, 'the slow create to hold its seat');
    const refused = await httpsGet(api, '/api/v1/namespaces/default/configmaps/x', { method: 'DELETE' });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toBe('Too many requests, please try again later.\n');
    expect((await httpsGet(api, '/api/v1/namespaces')).status).toBe(200);
    expect(await held.finish()).toBe(201);
    await waitFor(async () => (await inFlight(api, 'mutating')) === 0 || undefined, 'the seat to be free');
    expect((await httpsGet(api, '/api/v1/namespaces/default/configmaps/first', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('with priority and fairness (the default): one pool of both limits, health checks exempt', () => {
  let api: ApiserverProcess;
  beforeAll(async () => {
    api = await startApiserverProcess([...QUIET, '--max-requests-inflight=1', '--max-mutating-requests-inflight=1']);
  });
  afterAll(() => api?.cleanup());

  test('two held creates fill the pool: a read is turned away, /readyz still answers', async () => {
    const held = [slowCreate(api, 'a')];
    await waitFor(async () => (await inFlight(api, 'mutating')) === 1 || undefined, 'the first create to hold its seat');
    // The second create races this test's own probes for the last seat: one that lost (answered 429) is sent again.
    held.push(slowCreate(api, 'b'));
    await waitFor(async () => {
      if (held[1].answered()) held[1] = slowCreate(api, 'b');
      const r = await httpsGet(api, '/api/v1/namespaces');
      return r.status === 429 || undefined;
    }, 'the pool to fill');
    expect((await httpsGet(api, '/readyz')).status).toBe(200);
    expect(await Promise.all(held.map((h) => h.finish()))).toEqual([201, 201]);
    expect((await httpsGet(api, '/api/v1/namespaces')).status).toBe(200);
  });
});

test('bad limits are refused at start', async () => {
  const api = await startApiserverProcess(['--max-requests-inflight=-1', '--max-mutating-requests-inflight=0'], { waitReady: false });
  try {
    expect(await api.exited).not.toBe(0);
    expect(api.output()).toContain('--max-requests-inflight can not be negative value');
    expect(api.output()).toContain('--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true');
  } finally {
    await api.cleanup();
  }
});
