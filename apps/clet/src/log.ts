// The node agent's logging: @cl/logging configured from the `logging` section of the config (format, -v,
// --vmodule, split streams, info buffering, flush frequency), and the small entry type its components hand to
// a log function, so a line is structured (message, key-values, level) until the configured format writes it.
import { Logger, formatValue, type KeyValues, type LoggingOptions, type LogSink } from '@cl/logging';
import type { CletConfiguration } from './config/types';

export { Logger };

export interface LogEntry {
  msg: string;
  kv?: KeyValues;
  severity?: 'I' | 'W' | 'E';
  /** Verbosity for info lines: written only at -v (or the component's --vmodule level) at least this. */
  v?: number;
  err?: unknown;
}

/** What components log through: a structured entry, or a plain message at info level. */
export type LogFn = (entry: LogEntry | string) => void;

export function logLine(msg: string, kv: KeyValues = {}, opts: Pick<LogEntry, 'severity' | 'v' | 'err'> = {}): LogEntry {
  return { msg, kv, ...opts };
}

/** An entry as one line of klog text without the header (`"msg" err="x" key="value"`), for tests and messages. */
export function entryText(e: LogEntry | string): string {
  if (typeof e === 'string') return e;
  let out = JSON.stringify(e.msg);
  if (e.err !== undefined) out += ` err=${formatValue(e.err)}`;
  for (const [k, v] of Object.entries(e.kv ?? {})) if (v !== undefined) out += ` ${k}=${formatValue(v)}`;
  return out;
}

/** A log function writing to one named logger (the name --vmodule patterns match). */
export function logFn(logger: Logger): LogFn {
  return (e) => {
    if (typeof e === 'string') return logger.info(e);
    if (e.severity === 'E') return logger.error(e.msg, e.kv, e.err);
    const kv = e.err === undefined ? e.kv : { ...e.kv, err: e.err };
    if (e.severity === 'W') return logger.warn(e.msg, kv);
    logger.v(e.v ?? 0, e.msg, kv);
  };
}

/** Parses a byte size as the logging options take it (512, 1K, 2Ki, 3M, 5Mi). */
export function parseByteSize(s: string): number {
  const m = /^(\d+)(|k|K|M|G|Ki|Mi|Gi)$/.exec(s.trim());
  if (!m) throw new Error(`invalid size ${JSON.stringify(s)}`);
  const mult: Record<string, number> = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
  return Number(m[1]) * mult[m[2]];
}

/** The logger options a `logging` configuration section asks for. */
export function loggingOptions(logging: CletConfiguration['logging'], streams: { stdout: LogSink; stderr: LogSink }, flushFrequencyMs: number): LoggingOptions {
  const format = logging.format === 'json' ? 'json' : 'text';
  const streamOpts = format === 'json' ? logging.options?.json : logging.options?.text;
  return {
    name: 'clet',
    format,
    verbosity: logging.verbosity,
    vmodule: logging.vmodule ?? [],
    splitStream: streamOpts?.splitStream ?? false,
    infoBufferSize: parseByteSize(String(streamOpts?.infoBufferSize ?? '0')),
    flushFrequencyMs,
    ...streams,
  };
}
