// The listen backlog (connections the kernel completes before the server accepts them). Go's listeners ask for
// the kernel's somaxconn (capped at 65535); Node asks for 511 unless told. Under a busy event loop, 511 was too
// few for a thousand nodes reconnecting at once: the kernel fell back to SYN cookies and later reset connections
// that had waited too long (bench/density at 1,000 nodes).
import { readFileSync } from 'node:fs';

const GO_DEFAULT = 4096; // syscall.SOMAXCONN where somaxconn cannot be read

export function listenBacklog(read: () => string = () => readFileSync('/proc/sys/net/core/somaxconn', 'utf8')): number {
  try {
    const n = Number(read().trim());
    return Number.isInteger(n) && n > 0 ? Math.min(n, 65535) : GO_DEFAULT;
  } catch {
    return GO_DEFAULT;
  }
}
