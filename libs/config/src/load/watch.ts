// The trigger half of upstream's configuration reloaders (--authentication-config, --authorization-config):
// a check runs when the file's directory reports an event, on a poll (upstream: every minute) and once at
// start. Checks never overlap. What a check does (read, compare, load, keep the old configuration on error)
// belongs to the caller.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface ConfigFileWatcherOptions {
  /** Poll interval besides the file watch (upstream: 1 minute). */
  pollMs?: number;
  /** Where watch and check failures are reported. */
  log: (msg: string) => void;
  /** Names the file in log lines: `watching <what> file: ...`, `<what> reload: ...`. */
  what: string;
}

export class ConfigFileWatcher {
  private watcher: FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly checkFile: () => Promise<void>,
    private readonly opts: ConfigFileWatcherOptions,
  ) {}

  /** Starts watching and polling, and runs one check right away. */
  start(): void {
    try {
      // The directory, not the file: editors and ConfigMap volume updates (`..data` symlink swaps) replace it.
      const name = basename(this.file);
      this.watcher = watch(dirname(this.file), (_ev, f) => {
        if (!f || f === name || f.startsWith('..')) void this.check();
      });
      this.watcher.on('error', (e) => this.opts.log(`watching ${this.opts.what} file: ${e.message}`));
    } catch (e) {
      this.opts.log(`watching ${this.opts.what} file: ${(e as Error).message}`);
    }
    this.poll = setInterval(() => void this.check(), this.opts.pollMs ?? 60_000);
    this.poll.unref();
    void this.check();
  }

  /** Runs one check after any running one; resolves when it is done (a failure is logged, not thrown). */
  check(): Promise<void> {
    this.queue = this.queue.then(() => this.checkFile()).catch((e: Error) => this.opts.log(`${this.opts.what} reload: ${e.message}`));
    return this.queue;
  }

  /** Resolves when the running check (if any) is done. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Stops watching and polling; a running check finishes. */
  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
  }
}
