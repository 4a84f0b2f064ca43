// klog's text format (`I1122 10:11:12.123456   12345 clet.go:1] "msg" key="value"`), which is what
// operators and tests grep for in a node agent's stderr.
import { goQuote } from '@cl/flags';

export type Severity = 'I' | 'W' | 'E';

export interface Logger {
  info(msg: string, kv?: Record<string, unknown>): void;
  warn(msg: string, kv?: Record<string, unknown>): void;
  error(msg: string, kv?: Record<string, unknown>): void;
  /** A preformatted line (`"msg" k=v`) at a severity; other components log through this. */
  line(sev: Severity, text: string): void;
  /** Lines at or below this verbosity are written (`-v`). */
  verbosity: number;
}

function header(sev: Severity, now: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const us = p(now.getUTCMilliseconds(), 3) + '000';
  return (
    `${sev}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())} ${p(now.getUTCHours())}:${p(now.getUTCMinutes())}:` +
    `${p(now.getUTCSeconds())}.${us} ${String(process.pid).padStart(7)} clet.go:1] `
  );
}

/** klog's value rendering: strings quoted Go-style, multi-line strings as `<` block `>`. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') {
    if (v.includes('\n')) return `<\n${v.split('\n').map((l) => '\t' + l).join('\n')}\n >`;
    return goQuote(v);
  }
  if (v instanceof Error) return formatValue(v.message);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return goQuote(JSON.stringify(v) ?? String(v));
}

export function createLogger(write: (s: string) => void = (s) => process.stderr.write(s)): Logger {
  const emit = (sev: Severity, msg: string, kv?: Record<string, unknown>) => {
    let text = goQuote(msg);
    for (const [k, v] of Object.entries(kv ?? {})) text += ` ${k}=${formatValue(v)}`;
    write(header(sev, new Date()) + text + '\n');
  };
  return {
    verbosity: 0,
    info: (m, kv) => emit('I', m, kv),
    warn: (m, kv) => emit('W', m, kv),
    error: (m, kv) => emit('E', m, kv),
    line: (sev, text) => write(header(sev, new Date()) + text + '\n'),
  };
}
