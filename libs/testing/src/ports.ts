import { createServer } from 'node:net';

/** A port that was free on 127.0.0.1 a moment ago (for servers that cannot listen on port 0 themselves). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

type NotYet = undefined | null | false;

/** Polls `probe` until it returns something other than undefined, null or false (or throws past the attempts). */
export async function waitFor<T>(probe: () => Promise<T | NotYet> | T | NotYet, what: string, attempts = 600, everyMs = 100): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      const v = await probe();
      if (v !== undefined && v !== null && v !== false) return v as T;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`gave up waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
