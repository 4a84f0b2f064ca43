// The FailedScheduling message (upstream's FitError.Error(), pkg/scheduler/framework/types.go):
//
//   0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: ...
//
// Each reason is counted over the nodes, printed as "<count> <reason>", the entries sorted as strings (so "10 x"
// sorts before "2 y", as in Go), joined by ", " and closed with a period; the preemption part follows after a space.

export const NO_NODES_AVAILABLE_MESSAGE = 'no nodes available to schedule pods';

/** Events and conditions carry at most this much of the message (the API's NoteLengthLimit). */
export const MESSAGE_LIMIT = 1024;

/**
 * @param reasonsByNode the reasons of every node that has a status
 * @param absentReasons the reasons of each of the `numAllNodes - reasonsByNode.length` nodes without one
 */
export function fitErrorMessage(numAllNodes: number, reasonsByNode: ReadonlyArray<readonly string[]>, absentReasons: readonly string[] = []): string {
  const counts = new Map<string, number>();
  const count = (reason: string, n: number) => counts.set(reason, (counts.get(reason) ?? 0) + n);
  for (const reasons of reasonsByNode) for (const r of reasons) count(r, 1);
  const absent = numAllNodes - reasonsByNode.length;
  if (absent > 0) for (const r of absentReasons) count(r, absent);
  const histogram = [...counts].map(([reason, n]) => `${n} ${reason}`).sort(compareBytes);
  return `0/${numAllNodes} nodes are available:` + (histogram.length ? ` ${histogram.join(', ')}.` : '');
}

/** Go's string order (bytes); for the ASCII of these messages the same as UTF-16 order, but said plainly. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** upstream's truncateMessage. */
export function truncateMessage(message: string): string {
  if (message.length <= MESSAGE_LIMIT) return message;
  const suffix = ' ...';
  return message.slice(0, MESSAGE_LIMIT - suffix.length) + suffix;
}
