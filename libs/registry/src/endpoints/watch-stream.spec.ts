// streamWatch and a client that stops reading: the stream takes the next event from the watch only once the
// socket has drained, so unread events stay in the watch's bounded queue (which drops a watcher that never reads)
// instead of piling up in the response's buffer without limit.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '@cl/apimachinery';
import { CacheWatcherOverflowError, TooOldResourceVersionError, type CacheWatch, type WatchCacheItem } from '../watch-cache';
import { streamWatch } from './watch-stream';

const EVENTS = 2000;
const PAYLOAD = 'x'.repeat(64 * 1024);

/** A watch with EVENTS ready events that counts how many the stream has taken. */
function countingWatch(): CacheWatch<KubeObject> & { taken: number } {
  const w = {
    taken: 0,
    closed: false,
    close() {
      w.closed = true;
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<WatchCacheItem<KubeObject>> {
      for (let i = 0; i < EVENTS && !w.closed; i++) {
        w.taken++;
        yield { type: 'ADDED', key: `/configmaps/c${i}`, revision: i + 1, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, resourceVersion: String(i + 1) }, data: { p: PAYLOAD } } as KubeObject };
      }
    },
  };
  return w;
}

/** Two events, then the watch ends with `error`. */
function failingWatch(error: Error): CacheWatch<KubeObject> {
  return {
    close: () => undefined,
    async *[Symbol.asyncIterator](): AsyncGenerator<WatchCacheItem<KubeObject>> {
      for (let i = 0; i < 2; i++) yield { type: 'ADDED', key: `/configmaps/c${i}`, revision: i + 1, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, resourceVersion: String(i + 1) } } as KubeObject };
      throw error;
    },
  };
}

let server: Server;
let watch: ReturnType<typeof countingWatch>;
let failWith: Error | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (failWith) return void streamWatch(req, res, failingWatch(failWith), { timeoutMs: 600_000, apiVersion: 'v1', kind: 'ConfigMap' });
    watch = countingWatch();
    void streamWatch(req, res, watch, { timeoutMs: 600_000, apiVersion: 'v1', kind: 'ConfigMap' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

test('a client that stops reading holds the stream at what the socket buffers; reading on, it gets every event', async () => {
  const res = await new Promise<IncomingMessage>((resolve) => request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, resolve).end());
  res.pause();
  // Let the server write what the sockets take.
  let before = -1;
  while (watch.taken !== before) {
    before = watch.taken;
    await new Promise((r) => setTimeout(r, 200));
  }
  // 2,000 events of 64 KiB are ~128 MiB; the kernel's buffers hold a few MiB of them.
  expect(watch.taken).toBeLessThan(EVENTS / 4);
  let lines = 0;
  let rest = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop()!;
    lines += parts.length;
  });
  res.resume();
  await new Promise((r) => res.on('end', r));
  expect(lines).toBe(EVENTS);
  expect(watch.taken).toBe(EVENTS);
});

test.each<[string, Error, string[]]>([
  ['a watcher dropped for falling behind ends cleanly, as a timed-out one', new CacheWatcherOverflowError(1000), ['ADDED', 'ADDED']],
  ['a resourceVersion that left the window ends with an ERROR event (410)', new TooOldResourceVersionError(1, 5), ['ADDED', 'ADDED', 'ERROR']],
])('%s', async (_name, error, types) => {
  failWith = error;
  try {
    const body = await new Promise<string>((resolve) =>
      request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve(text));
      }).end(),
    );
    expect(body.trim().split('\n').map((l) => JSON.parse(l).type)).toEqual(types);
  } finally {
    failWith = undefined;
  }
});
