// --lock-file: an exclusive flock(2) held for the life of the process. Node has no flock, so a `flock`
// child holds it: the lock is released when this process exits and the child's stdin closes.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, utimesSync, watch, type FSWatcher } from 'node:fs';

export interface HeldLock {
  release(): void;
}

/**
 * Blocks until the lock is held. A contender that must wait touches the file first: upstream detects
 * contention with inotify IN_OPEN, which Node cannot watch, so the attribute change stands in for it.
 */
export async function acquireLock(path: string): Promise<HeldLock> {
  try {
    closeSync(openSync(path, 'a', 0o600));
  } catch (e) {
    throw new Error(`unable to acquire file lock on ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
  const tryOnce = await runFlock(path, true);
  if (tryOnce.held) return tryOnce.lock!;
  const now = new Date();
  utimesSync(path, now, now);
  const blocking = await runFlock(path, false);
  if (!blocking.held) throw new Error(`unable to acquire file lock on ${JSON.stringify(path)}: ${blocking.error}`);
  return blocking.lock!;
}

function runFlock(path: string, nonBlocking: boolean): Promise<{ held: boolean; lock?: HeldLock; error?: string }> {
  return new Promise((resolve) => {
    const args = ['--exclusive', ...(nonBlocking ? ['--nonblock'] : []), path, '-c', 'echo held; exec cat >/dev/null'];
    const child: ChildProcess = spawn('flock', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.once('data', () => {
      // Keep the child from holding this process open once everything else is done.
      child.unref();
      (child.stdin as unknown as { unref?: () => void }).unref?.();
      (child.stdout as unknown as { unref?: () => void }).unref?.();
      (child.stderr as unknown as { unref?: () => void }).unref?.();
      resolve({ held: true, lock: { release: () => child.kill() } });
    });
    child.on('error', (e) => resolve({ held: false, error: e.message }));
    child.on('exit', (code) => resolve({ held: false, error: stderr.trim() || `flock exited with ${code}` }));
  });
}

/** --exit-on-lock-contention: calls `onContention` when another process touches the lock file. */
export function watchContention(path: string, onContention: () => void): FSWatcher {
  const w = watch(path, () => onContention());
  w.unref();
  return w;
}
