// klog's text format (`I1122 04:51:49.123456   12345 server.go] message`), so operators' log tooling reads
// cl's logs the way it reads kube-apiserver's. Lines are written synchronously to stderr, so nothing is lost
// when the process exits right after logging.
import { writeSync } from 'node:fs';
import { klogHeader, type Severity } from '@cl/logging';

export type { Severity };

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  /** Logged only at `-v` >= level. */
  v(level: number, msg: string): void;
  /** Resolves once everything written so far has reached the file descriptor. */
  flush(): Promise<void>;
}

/** A line with klog's header and the message as it is (the API server logs preformatted messages). */
export function klogLine(sev: Severity, msg: string, at = new Date(), source = 'apiserver'): string {
  return `${klogHeader(sev, at, source)}${msg}\n`;
}

export function createLogger(opts: { verbosity?: number; fd?: number; source?: string } = {}): Logger {
  const fd = opts.fd ?? 2;
  const verbosity = opts.verbosity ?? 0;
  const write = (sev: Severity, msg: string) => {
    try {
      writeSync(fd, klogLine(sev, msg, new Date(), opts.source));
    } catch {
      // A closed stderr must not take the server down with it.
    }
  };
  return {
    info: (m) => write('I', m),
    warn: (m) => write('W', m),
    error: (m) => write('E', m),
    v: (level, m) => {
      if (verbosity >= level) write('I', m);
    },
    // Writes are synchronous, so a flush only has to prove the descriptor still accepts writes.
    flush: () =>
      new Promise<void>((resolve, reject) => {
        try {
          writeSync(fd, '');
          resolve();
        } catch (e) {
          reject(e);
        }
      }),
  };
}
