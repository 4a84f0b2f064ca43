// A watch as kube-apiserver streams it: 200 with chunked JSON, one flushed line per event
// ({"type":"ADDED","object":{...}}), BOOKMARKs when asked for, the stream ended at timeoutSeconds, and a watch
// that cannot resume (its resourceVersion left the cache's window) answered with one ERROR event carrying a
// 410 Expired Status before the stream closes, so clients relist.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { statusFailure, type KubeObject } from '@cl/apimachinery';
import type { CacheWatch, WatchCacheItem } from '../watch-cache';
import { CacheWatcherOverflowError, TooOldResourceVersionError } from '../watch-cache';
import { eventLine as sharedLine } from './serialize';
import { TABLE_CONTENT_TYPE } from './negotiation';
import { partialObject, partialObjectJson, type MetaVersion } from './partial-metadata';

export interface WatchStreamOptions {
  /** Ends the stream after this long (timeoutSeconds). */
  timeoutMs: number;
  /** The kind's apiVersion and kind, for BOOKMARK objects. */
  apiVersion: string;
  kind: string;
  /** Each event's object as a one-row Table (kubectl get -w); the first carries the column definitions. */
  asTable?: (o: KubeObject, first: boolean) => unknown;
  /** Each event's object (bookmarks too) as meta.k8s.io PartialObjectMetadata of this version (client-go's metadata informers). */
  asPartial?: MetaVersion;
  /** Called once when the stream ends (in-flight accounting, metrics). */
  onEnd?: () => void;
  /** With bookmarks: the cache's revision, sent as a last BOOKMARK 2 s before the timeout (as upstream), so the client resumes from it. */
  finalBookmark?: () => number;
}

export async function streamWatch(req: IncomingMessage, res: ServerResponse, watch: CacheWatch<KubeObject>, opts: WatchStreamOptions): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', opts.asTable ? TABLE_CONTENT_TYPE : 'application/json');
  res.setHeader('Transfer-Encoding', 'chunked');
  res.flushHeaders();
  let first = true;
  const timer = setTimeout(() => watch.close(), opts.timeoutMs);
  const last =
    opts.finalBookmark && opts.timeoutMs > 2000
      ? setTimeout(() => {
          // A timer's exception would end the process: a failure here ends only this watch.
          try {
            if (!res.destroyed) res.write(eventLine({ type: 'BOOKMARK', revision: opts.finalBookmark!() }, opts, false));
          } catch {
            watch.close();
          }
        }, opts.timeoutMs - 2000)
      : null;
  const end = () => watch.close();
  req.on('close', end);
  res.on('close', end);
  try {
    for await (const item of watch) {
      if (res.destroyed) break;
      const line = eventLine(item, opts, first);
      if (item.type !== 'BOOKMARK') first = false;
      // A client that reads slower than events come: the next event waits here until the socket drains, so
      // events pile up in the watch's bounded queue (not in this response's buffer) and a client that stops
      // reading overflows it and is dropped, as upstream ends a cacheWatcher that cannot keep up.
      if (!res.write(line)) await drained(res);
    }
  } catch (e) {
    // A watcher dropped for falling behind ends like a timed-out one, as upstream's cacheWatcher is stopped: the
    // client watches again at once from the last resourceVersion it got.
    if (!res.destroyed && !(e instanceof CacheWatcherOverflowError)) {
      const message = e instanceof TooOldResourceVersionError ? e.message : `watch ended: ${(e as Error).message}`;
      const status = e instanceof TooOldResourceVersionError ? statusFailure(410, 'Expired', message) : statusFailure(500, 'InternalError', message);
      res.write(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    }
  } finally {
    clearTimeout(timer);
    if (last) clearTimeout(last);
    req.off('close', end);
    res.off('close', end);
    if (!res.destroyed) res.end();
    opts.onEnd?.();
  }
}

function eventLine(item: WatchCacheItem<KubeObject>, opts: WatchStreamOptions, first: boolean): string | Buffer {
  if (item.type === 'BOOKMARK') {
    const metadata: Record<string, unknown> = { resourceVersion: String(item.revision) };
    if (item.initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    const object = { kind: opts.kind, apiVersion: opts.apiVersion, metadata };
    return JSON.stringify({ type: 'BOOKMARK', object: opts.asPartial ? partialObject(object, opts.asPartial) : object }) + '\n';
  }
  // A DELETED event carries the last state at the deletion's revision.
  const object =
    item.type === 'DELETED' && item.object.metadata?.resourceVersion !== String(item.revision)
      ? { ...item.object, metadata: { ...item.object.metadata, resourceVersion: String(item.revision) } }
      : item.object;
  if (opts.asTable) return JSON.stringify({ type: item.type, object: opts.asTable(object, first) }) + '\n';
  if (opts.asPartial) return `{"type":"${item.type}","object":${partialObjectJson(object, opts.asPartial)}}\n`;
  return sharedLine(item.type, object);
}

/** Resolves when the response's buffer has drained, or once it is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
