// apimachinery's utilerrors.NewAggregate: one message when there is one error, `[e1, e2]` otherwise,
// duplicates removed. Used by the unions so the log shows why every authenticator declined.

export class AggregateError extends Error {
  constructor(readonly errors: Error[]) {
    super(aggregateMessage(errors));
    this.name = 'AggregateError';
  }
}

function aggregateMessage(errors: Error[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  for (const e of errors) {
    if (seen.has(e.message)) continue;
    seen.add(e.message);
    msgs.push(e.message);
  }
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

/** null for no errors, the error itself for one, an AggregateError for several. */
export function aggregate(errors: Error[]): Error | null {
  if (errors.length === 0) return null;
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors);
}

export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
