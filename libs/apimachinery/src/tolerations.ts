// Whether a toleration covers a taint, as k8s.io/api/core/v1 Toleration.ToleratesTaint: shared by the scheduler
// (which nodes a pod may go to) and the controllers (which pods a NoExecute taint evicts).

export interface TaintLike {
  key: string;
  value?: string;
  effect: string;
}

export interface TolerationLike {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/** An empty effect or key in the toleration matches any; `Exists` matches any value, `Equal` (or empty) one value. */
export function toleratesTaint(t: TolerationLike, taint: TaintLike): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}
