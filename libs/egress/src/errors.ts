/** Where a tunnelled dial failed: reaching the tunnel server (`connect`) or asking it for the destination (`proxy`). */
export type DialStage = 'connect' | 'proxy';

/** A failed dial through a tunnel; `message` follows the upstream (Go) wording so logs read the same. */
export class EgressDialError extends Error {
  constructor(
    message: string,
    readonly stage: DialStage,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EgressDialError';
  }
}

// Go prints syscall errors by their strerror text; Node gives the errno code. Only the common ones matter here.
const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ECONNREFUSED: 'connection refused',
  EACCES: 'permission denied',
  ECONNRESET: 'connection reset by peer',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network is unreachable',
  ENOTSOCK: 'socket operation on non-socket',
  EADDRNOTAVAIL: 'cannot assign requested address',
};

/** `dial unix /run/x.sock: connect: no such file or directory`-style text for a socket error. */
export function describeConnectError(network: 'tcp' | 'unix', address: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code && ERRNO_TEXT[code]) return `dial ${network} ${address}: connect: ${ERRNO_TEXT[code]}`;
  return `dial ${network} ${address}: ${errorText(err)}`;
}

/** Go's context errors for an aborted signal: a timeout reads as a deadline, anything else as a cancel. */
export function abortText(signal: AbortSignal): string {
  // AbortSignal.timeout() aborts with a DOMException named TimeoutError (not an Error subclass on every Node).
  const name = (signal.reason as { name?: unknown } | undefined)?.name;
  return name === 'TimeoutError' ? 'context deadline exceeded' : 'context canceled';
}

export function errorText(err: unknown): string {
  // Duck-typed: errors from another realm (vm contexts, test runners) fail `instanceof Error`.
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}

/** `open /x: no such file or directory`, as Go reports a file that cannot be read. */
export function fileErrorText(err: unknown): string {
  const { code, path, syscall } = (err ?? {}) as NodeJS.ErrnoException;
  if (code && path && ERRNO_TEXT[code]) return `${syscall ?? 'open'} ${path}: ${ERRNO_TEXT[code]}`;
  if (code === 'EISDIR' && path) return `read ${path}: is a directory`;
  return errorText(err);
}
