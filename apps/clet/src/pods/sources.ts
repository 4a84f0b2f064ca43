// Static pod sources: a manifest path (directory or one file) re-read every fileCheckFrequency and on
// file-system events, and a manifest URL polled every httpCheckFrequency. Each read hands the full
// SET of the source's pods to onSet; a broken manifest is logged and skipped, never fatal.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import type { Pod } from './api-types';
import { decodeFilePod, decodeUrlPods, MAX_CONFIG_LENGTH } from './decode';
import { logLine, type LogFn } from './log';

export type PodSetHandler = (source: 'file' | 'http', pods: Pod[]) => void;

export interface PodSource { start(): void; stop(): void }

export class FileSource implements PodSource {
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private readonly path: string;
  /** Last good decode per file: an unchanged file is not parsed again on every re-read. */
  private readonly decoded = new Map<string, { text: string; pod: Pod }>();

  constructor(manifestPath: string, private readonly nodeName: string, private readonly periodMs: number,
    private readonly onSet: PodSetHandler, private readonly log: LogFn) {
    this.path = manifestPath.length > 1 ? manifestPath.replace(/\/+$/, '') : manifestPath;
  }

  start(): void {
    this.read();
    this.timer = setInterval(() => this.read(), Math.max(this.periodMs, 100));
    this.watch();
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.watcher?.close();
  }

  // Watch the directory (or the file's directory: editors replace files by rename). Watch errors are
  // harmless: the periodic re-read still catches every change.
  private watch(): void {
    let dir = this.path;
    try {
      if (!fs.statSync(dir).isDirectory()) dir = path.dirname(dir);
    } catch {
      dir = path.dirname(dir);
    }
    try {
      // One read 10ms after the first event of a burst: editors and copies make several events per
      // change, and a directory that never calms down still gets read (upstream reads per event).
      this.watcher = fs.watch(dir, { persistent: false }, () => {
        if (this.debounce) return;
        this.debounce = setTimeout(() => {
          this.debounce = undefined;
          this.read();
        }, 10);
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      /* directory absent: the periodic read reports it */
    }
  }

  private read(): void {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.path);
    } catch {
      this.log(logLine('Unable to read config path', { err: 'path does not exist, ignoring', path: this.path }));
      this.onSet('file', []);
      return;
    }
    if (st.isDirectory()) {
      const pods: Pod[] = [];
      let names: string[] = [];
      try {
        names = fs.readdirSync(this.path).filter((n) => !n.startsWith('.')).sort();
      } catch (e) {
        this.log(logLine('Unable to read config path', { err: (e as Error).message, path: this.path }));
      }
      for (const n of names) {
        const file = path.join(this.path, n);
        let fst: fs.Stats;
        try {
          fst = fs.statSync(file);
        } catch {
          continue; // removed while listing
        }
        if (fst.isDirectory()) {
          this.log(logLine('Not recursing into manifest path', { path: file }));
          continue;
        }
        if (!fst.isFile()) continue;
        const pod = this.readFile(file);
        if (pod) pods.push(pod);
      }
      const present = new Set(names.map((n) => path.join(this.path, n)));
      for (const f of this.decoded.keys()) if (!present.has(f)) this.decoded.delete(f);
      this.onSet('file', pods);
    } else if (st.isFile()) {
      const pod = this.readFile(this.path);
      this.onSet('file', pod ? [pod] : []);
    } else {
      this.log(logLine('Unable to read config path', { err: 'path is not a directory or file', path: this.path }));
      this.onSet('file', []);
    }
  }

  private readFile(file: string): Pod | null {
    try {
      const buf = fs.readFileSync(file);
      if (buf.length > MAX_CONFIG_LENGTH) throw new Error(`${file}: manifest is larger than ${MAX_CONFIG_LENGTH} bytes`);
      const text = buf.toString('utf8');
      const hit = this.decoded.get(file);
      if (hit?.text === text) return structuredClone(hit.pod);
      this.decoded.delete(file);
      const pod = decodeFilePod(text, file, this.nodeName);
      this.decoded.set(file, { text, pod: structuredClone(pod) });
      return pod;
    } catch (e) {
      this.log(logLine('Could not process manifest file', { err: (e as Error).message, path: file }));
      return null;
    }
  }
}

export class HttpSource implements PodSource {
  private timer: NodeJS.Timeout | undefined;
  private lastBody: string | undefined;
  private inFlight = false;
  private stopped = false;

  constructor(private readonly url: string, private readonly headers: Record<string, string[]>, private readonly nodeName: string,
    private readonly periodMs: number, private readonly onSet: PodSetHandler, private readonly log: LogFn) {}

  start(): void {
    void this.poll();
    this.timer = setInterval(() => void this.poll(), Math.max(this.periodMs, 100));
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private get(): Promise<{ status: number; statusText: string; body: Buffer }> {
    // Raw header pairs keep repeated names as separate lines, as Go's header.Add does.
    // With raw headers Node adds no Host header of its own.
    const raw: string[] = ['Host', new URL(this.url).host];
    for (const [k, vs] of Object.entries(this.headers)) for (const v of vs) raw.push(k, v);
    const mod = this.url.startsWith('https:') ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.get(this.url, { headers: raw as unknown as http.OutgoingHttpHeaders, timeout: 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_CONFIG_LENGTH) req.destroy(new Error(`response from ${this.url} is larger than ${MAX_CONFIG_LENGTH} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`Get "${this.url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
      req.on('error', reject);
    });
  }

  private async poll(): Promise<void> {
    if (this.inFlight || this.stopped) return;
    this.inFlight = true;
    try {
      const res = await this.get();
      if (this.stopped) return;
      if (res.status !== 200) throw new Error(`${this.url}: ${res.status} ${res.statusText}`);
      const body = res.body.toString('utf8');
      if (body.length === 0) {
        this.lastBody = body;
        this.onSet('http', []);
        throw new Error(`zero-length data received from ${this.url}`);
      }
      if (body === this.lastBody) return;
      const pods = decodeUrlPods(body, this.url, this.nodeName);
      this.lastBody = body;
      this.onSet('http', pods);
    } catch (e) {
      this.log(logLine('Unable to read pod manifest from URL', { err: (e as Error).message, URL: this.url }));
    } finally {
      this.inFlight = false;
    }
  }
}
