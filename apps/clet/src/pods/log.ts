// Structured log lines in klog's key=value text form: `"message" key="value" other=3`.
export function logLine(msg: string, kv: Record<string, string | number | boolean | undefined> = {}): string {
  const parts = [JSON.stringify(msg)];
  for (const [k, v] of Object.entries(kv)) {
    if (v === undefined) continue;
    parts.push(`${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
  }
  return parts.join(' ');
}
