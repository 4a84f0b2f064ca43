// Request deadlines and connection timeouts on the built server, with small values so that nothing waits long:
// --request-timeout=2s (a trickling body gets upstream's 504 and gives its max-in-flight seat back at once; `?timeout=`
// shortens the deadline and cannot lengthen it), --min-request-timeout=5 (a watch outlives the request timeout and
// ends on its own clock), and the hidden --read-header-timeout / --idle-connection-timeout at 1s in place of Go's
// 32 s and 90 s (silent connections, half-sent headers, idle kept-alive connections are closed).
import { spawnSync } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { get, request } from 'node:https';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { waitFor } from '@cl/testing';
import { MAIN, httpsGet, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(120_000);

const TIMEOUT_BODY = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n';

let api: ApiserverProcess;
beforeAll(async () => {
  api = await startApiserverProcess([
    '--enable-scheduler=false',
    '--controllers=',
    '--request-timeout=2s',
    '--min-request-timeout=5',
    '--enable-priority-and-fairness=false',
    '--max-requests-inflight=3',
    '--max-mutating-requests-inflight=1',
    '--read-header-timeout=1s',
    '--idle-connection-timeout=1s',
  ]);
});
afterAll(() => api?.cleanup());

const inFlight = async (kind: string) => {
  const m = (await httpsGet(api, '/metrics')).body;
  return Number(new RegExp(`^apiserver_current_inflight_requests\\{request_kind="${kind}"\\} (\\d+)`, 'm').exec(m)?.[1] ?? NaN);
};

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

const answer = (res: IncomingMessage, resolve: (a: Answer) => void) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (d) => (body += d));
  res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
};

/** A create whose body never finishes: the start of a ConfigMap, then a space every 200 ms for as long as the connection lasts. */
function tricklingCreate(name: string): { answered: Promise<Answer>; connectionClosed: Promise<void> } {
  let closed!: () => void;
  const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
  const answered = new Promise<Answer>((resolve, reject) => {
    const req = request(`${api.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', ca: api.servingCA(), agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => answer(res, resolve));
    const timer = setInterval(() => req.write(' '), 200);
    req.on('socket', (s) => s.on('close', () => (clearInterval(timer), closed())));
    // Writes after the server closed the connection fail; only a failure before any answer is the test's.
    req.on('error', reject);
    req.write(`{"metadata":{"name":"${name}"}`);
  });
  return { answered, connectionClosed };
}

/** A watch of the default namespace's config maps without timeoutSeconds: its lines, and how and when it ended. */
function watchConfigMaps() {
  const started = Date.now();
  let text = '';
  const ended = new Promise<{ clean: boolean; afterMs: number }>((resolve, reject) => {
    get(`${api.url}/api/v1/namespaces/default/configmaps?watch=true`, { ca: api.servingCA(), agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ clean: true, afterMs: Date.now() - started }));
      res.on('aborted', () => resolve({ clean: false, afterMs: Date.now() - started }));
    }).on('error', reject);
  });
  return { text: () => text, ended };
}

const get200 = (path: string) => httpsGet(api, path).then((r) => (r.status === 200 ? r : Promise.reject(new Error(`${path}: ${r.status} ${r.body}`))));

describe('--request-timeout', () => {
  test('a body that trickles in gets the 504 Status at the timeout, and its seat is free for the next request at once; a watch goes on', async () => {
    const watch = watchConfigMaps();
    const slow = tricklingCreate('slow');
    await waitFor(async () => (await inFlight('mutating')) === 1 || undefined, 'the trickling create to hold the only mutating seat');
    const refused = await httpsGet(api, '/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(429);

    const timedOut = await slow.answered;
    expect([timedOut.status, timedOut.headers['content-type'], timedOut.headers.connection, timedOut.body]).toEqual([504, 'text/plain; charset=utf-8', 'close', TIMEOUT_BODY]);
    // The same user, right after the timeout: served, not 429.
    const next = await new Promise<Answer>((resolve, reject) => {
      const req = request(`${api.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', ca: api.servingCA(), agent: false, headers: { 'content-type': 'application/json' } }, (res) => answer(res, resolve));
      req.on('error', reject);
      req.end('{"metadata":{"name":"after-timeout"}}');
    });
    expect(next.status).toBe(201);
    // The server closed the slow client's connection: nothing more of its body is waited for.
    await slow.connectionClosed;
    // The watch, older than the request timeout, still delivers.
    await waitFor(() => watch.text().includes('"name":"after-timeout"') || undefined, 'the watch to see the create after the timeout');
    expect(watch.text()).not.toContain('"name":"slow"');

    // --min-request-timeout=5: a watch without timeoutSeconds ends cleanly after 5 to 10 s.
    const end = await watch.ended;
    expect(end.clean).toBe(true);
    expect(end.afterMs).toBeGreaterThanOrEqual(5000);
  });

  test('?timeout= shortens the deadline and cannot lengthen it past --request-timeout; a bad value is 400', async () => {
    // A list at a resourceVersion the cache has not reached waits for it (3 s, then its own 504 "Too large
    // resource version"), unless the request's deadline comes first.
    const rv = Number(JSON.parse((await get200('/api/v1/namespaces/default/configmaps')).body).metadata.resourceVersion);
    const order: string[] = [];
    const list = (timeout: string) => httpsGet(api, `/api/v1/namespaces/default/configmaps?resourceVersion=${rv + 1000}&resourceVersionMatch=NotOlderThan&timeout=${timeout}`).then((r) => (order.push(timeout), r));
    const [short, long] = await Promise.all([list('1s'), list('10m')]);
    expect([short.status, short.body]).toEqual([504, TIMEOUT_BODY]);
    // 10m is capped at --request-timeout (2 s): the server's deadline, not the cache's 3 s wait, answers.
    expect([long.status, long.body]).toEqual([504, TIMEOUT_BODY]);
    expect(order).toEqual(['1s', '10m']);

    const bad = await httpsGet(api, '/api/v1/namespaces?timeout=abc');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'invalid timeout specified in the request URL - time: invalid duration "abc"', reason: 'BadRequest', code: 400 });
    // Long-running requests do not read it.
    expect((await httpsGet(api, '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&timeout=abc')).status).toBe(200);
  });
});

/** Opens a connection, sends `send` (if anything), and resolves once the server closes it, with what it had sent back. */
function untilClosed(kind: 'tcp' | 'tls', send?: string): Promise<{ received: string; byServer: boolean }> {
  return new Promise((resolve, reject) => {
    let received = '';
    let byServer = false;
    const s: Socket = kind === 'tls' ? tlsConnect({ host: '127.0.0.1', port: api.port, rejectUnauthorized: false }, () => send && s.write(send)) : tcpConnect(api.port, '127.0.0.1');
    s.setEncoding('utf8');
    s.on('data', (d) => (received += d));
    s.on('end', () => (byServer = true));
    s.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? (byServer = true) : reject(e)));
    s.on('close', () => resolve({ received, byServer }));
  });
}

describe('connection timeouts (--read-header-timeout=1s, --idle-connection-timeout=1s)', () => {
  test('silent, half-sent and idle connections are closed by the server', async () => {
    const [noHandshake, noRequest, halfHeaders, idle] = await Promise.all([
      untilClosed('tcp'),
      untilClosed('tls'),
      untilClosed('tls', 'GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
      untilClosed('tls', 'GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
    ]);
    expect(noHandshake).toEqual({ received: '', byServer: true });
    expect(noRequest).toEqual({ received: '', byServer: true });
    // As Go's server: headers that did not arrive in time get no answer.
    expect(halfHeaders).toEqual({ received: '', byServer: true });
    // A kept-alive connection is answered, then closed when no further request comes.
    expect(idle.byServer).toBe(true);
    expect(idle.received).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n[\s\S]*\r\n\r\nok$/);
  });
});

test('bad timeout flags are refused at start, every one at once', () => {
  const r = spawnSync(process.execPath, [MAIN, '--request-timeout=-1s', '--min-request-timeout=-1', '--http2-max-streams-per-connection=100', '--read-header-timeout=0s'], { encoding: 'utf8' });
  expect(r.status).toBe(1);
  expect(r.stderr.split('\n').filter((l) => l.startsWith('Error: '))).toEqual([
    'Error: --request-timeout can not be negative value',
    'Error: --min-request-timeout can not be negative value',
    'Error: --read-header-timeout must be greater than 0, got 0s',
    'Error: --http2-max-streams-per-connection=100: this server speaks HTTP/1.1 only, one request at a time on each connection, so there are no HTTP/2 streams to limit; leave it unset or 0',
  ]);
});
