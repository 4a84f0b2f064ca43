// The two line formats of Kubernetes components: klog's text (`I1124 15:45:00.123456   12345 pods.ts:1] "msg"
// key="value"`) and the JSON format of component-base/logs/json (`{"ts":1700000000.123,"caller":"pods.ts:1",
// "msg":"msg","v":0,"key":"value"}`, errors with "err" and no "v").
import { goQuote } from '@cl/flags';

export type Severity = 'I' | 'W' | 'E';
export type KeyValues = Record<string, unknown>;

export interface LogRecord {
  severity: Severity;
  /** Verbosity the record was logged at (0 for warnings and errors). */
  v: number;
  msg: string;
  kv?: KeyValues;
  err?: unknown;
  /** The logger's name, shown where klog shows the source file. */
  caller: string;
  at: Date;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** klog's rendering of a value: strings quoted Go-style, multi-line strings as an indented block. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') {
    if (v.includes('\n')) return `<\n${v.split('\n').map((l) => '\t' + l).join('\n')}\n >`;
    return goQuote(v);
  }
  if (v instanceof Error) return formatValue(v.message);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === undefined || v === null) return '<nil>';
  return goQuote(JSON.stringify(v) ?? String(v));
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** klog's line header: `I1124 15:45:00.123000   4242 caller] `. */
export function klogHeader(severity: Severity, t: Date, caller: string): string {
  return (
    `${severity}${pad(t.getUTCMonth() + 1)}${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:` +
    `${pad(t.getUTCSeconds())}.${pad(t.getUTCMilliseconds(), 3)}000 ${String(process.pid).padStart(7)} ${caller}] `
  );
}

export function textLine(r: LogRecord): string {
  let line = klogHeader(r.severity, r.at, r.caller) + goQuote(r.msg);
  if (r.err !== undefined) line += ` err=${formatValue(errorText(r.err))}`;
  for (const [k, v] of Object.entries(r.kv ?? {})) if (v !== undefined) line += ` ${k}=${formatValue(v)}`;
  return line + '\n';
}

export function jsonLine(r: LogRecord): string {
  const out: KeyValues = { ts: r.at.getTime() / 1000, caller: r.caller, msg: r.msg };
  // As zap's encoder for klog: info records carry their verbosity, error records their error.
  if (r.severity === 'E') {
    if (r.err !== undefined) out.err = errorText(r.err);
  } else out.v = r.v;
  for (const [k, v] of Object.entries(r.kv ?? {})) if (v !== undefined && !(k in out)) out[k] = v instanceof Error ? v.message : v;
  return JSON.stringify(out) + '\n';
}
