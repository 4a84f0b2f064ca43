// A leveled, named logger with the options of Kubernetes components (logging.* of a component config, or the
// -v, --vmodule, --logging-format, --log-*-split-stream, --log-*-info-buffer-size and --log-flush-frequency
// flags). Errors and warnings are written at once; info lines are buffered only when a buffer size is set, and
// then flushed when it fills and every flush interval. Writes never throw: a closed stream must not take the
// process down, and flush() reports it instead (the `log` health check).
import { jsonLine, textLine, type KeyValues, type LogRecord, type Severity } from './format';

export interface VModuleItem {
  filePattern: string;
  verbosity: number;
}

export interface LogSink {
  write(s: string): void;
}

export interface LoggingOptions {
  format?: 'text' | 'json';
  verbosity?: number;
  vmodule?: VModuleItem[];
  /** Errors to `stderr`, info to `stdout`; otherwise one stream (`stderr`), as upstream's default. */
  splitStream?: boolean;
  /** Bytes of info lines held before writing (split stream only); 0 writes each line at once. */
  infoBufferSize?: number;
  flushFrequencyMs?: number;
  stdout?: LogSink;
  stderr?: LogSink;
  /** The name of the root logger (shown as the caller). */
  name?: string;
  now?: () => Date;
}

/** klog's vmodule patterns: a glob (`*`, `?`) on the caller's base name without extension. */
function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

class Output {
  verbosity: number;
  private vmodule: Array<{ re: RegExp; verbosity: number }>;
  private buffer = '';
  private failed: Error | null = null;
  private readonly timer: NodeJS.Timeout | null = null;
  readonly format: 'text' | 'json';

  constructor(private readonly opts: LoggingOptions) {
    this.format = opts.format ?? 'text';
    this.verbosity = opts.verbosity ?? 0;
    this.vmodule = (opts.vmodule ?? []).map((m) => ({ re: globToRegExp(m.filePattern), verbosity: m.verbosity }));
    if ((opts.infoBufferSize ?? 0) > 0) {
      this.timer = setInterval(() => this.drain(), opts.flushFrequencyMs ?? 5000);
      this.timer.unref();
    }
  }

  /** The verbosity that applies to a logger name: the first matching vmodule pattern, else -v. */
  verbosityFor(name: string): number {
    for (const m of this.vmodule) if (m.re.test(name)) return m.verbosity;
    return this.verbosity;
  }

  emit(r: LogRecord) {
    const line = this.format === 'json' ? jsonLine(r) : textLine(r);
    const toStdout = this.opts.splitStream && r.severity !== 'E';
    if (toStdout && (this.opts.infoBufferSize ?? 0) > 0) {
      this.buffer += line;
      if (this.buffer.length >= this.opts.infoBufferSize!) this.drain();
      return;
    }
    // An error goes out after the info lines logged before it, so the order on a shared terminal holds.
    if (!toStdout) this.drain();
    this.write(toStdout ? this.opts.stdout : this.opts.stderr, line);
  }

  drain() {
    if (!this.buffer) return;
    const out = this.buffer;
    this.buffer = '';
    this.write(this.opts.stdout, out);
  }

  private write(sink: LogSink | undefined, s: string) {
    try {
      (sink ?? { write: (x: string) => process.stderr.write(x) }).write(s);
      this.failed = null;
    } catch (e) {
      this.failed = e as Error;
    }
  }

  flush(): Promise<void> {
    this.drain();
    return this.failed ? Promise.reject(this.failed) : Promise.resolve();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.drain();
  }
}

export class Logger {
  private constructor(
    private readonly out: Output,
    readonly name: string,
    private readonly now: () => Date,
  ) {}

  static create(opts: LoggingOptions = {}): Logger {
    return new Logger(new Output(opts), opts.name ?? 'main', opts.now ?? (() => new Date()));
  }

  /** A logger for one component; `--vmodule` patterns match its name. */
  named(name: string): Logger {
    return new Logger(this.out, name, this.now);
  }

  /** Whether a line at this verbosity would be written (to skip building costly key-values). */
  enabled(level: number): boolean {
    return level <= this.out.verbosityFor(this.name);
  }

  get verbosity(): number {
    return this.out.verbosity;
  }

  /** Changes -v at run time (PUT /debug/flags/v). */
  set verbosity(v: number) {
    this.out.verbosity = v;
  }

  get format(): 'text' | 'json' {
    return this.out.format;
  }

  info(msg: string, kv?: KeyValues): void {
    this.record('I', 0, msg, kv);
  }

  /** An info line written only at -v >= level (or the vmodule level of this logger's name). */
  v(level: number, msg: string, kv?: KeyValues): void {
    if (this.enabled(level)) this.record('I', level, msg, kv);
  }

  warn(msg: string, kv?: KeyValues): void {
    this.record('W', 0, msg, kv);
  }

  error(msg: string, kv?: KeyValues, err?: unknown): void {
    this.out.emit({ severity: 'E', v: 0, msg, kv, err, caller: this.name, at: this.now() });
  }

  /** Writes what is buffered; rejects when the last write failed (the `log` health check). */
  flush(): Promise<void> {
    return this.out.flush();
  }

  stop(): void {
    this.out.stop();
  }

  private record(severity: Severity, v: number, msg: string, kv?: KeyValues) {
    this.out.emit({ severity, v, msg, kv, caller: this.name, at: this.now() });
  }
}
