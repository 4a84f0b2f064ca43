// --runonce, as upstream's runOnce: each admitted pod is synced until all its containers have run (running or
// exited), up to 10 tries 1 s apart doubling; the pods are then left running and the agent exits.
import { formatDuration } from '@cl/flags';
import type { PodLifecycle } from '@cl/node';
import type { Pod, PodStatus } from './api-types';
import { logLine, type LogFn } from './log';
import { podFullName } from './runtime-spec';

const TRIES = 10;
const FIRST_DELAY_MS = 1000;

/** Runs the pods once; resolves with one line per pod that did not get its containers running. */
export async function runPodsOnce(pods: Pod[], lifecycle: Pick<PodLifecycle<Pod, PodStatus>, 'sync'>, log: LogFn): Promise<string[]> {
  const failures: string[] = [];
  await Promise.all(pods.map(async (pod) => {
    let delay = FIRST_DELAY_MS;
    for (let i = 0; i < TRIES; i++) {
      try {
        const { status } = await lifecycle.sync(pod);
        if (status.containerStatuses?.every((cs) => cs.state.running || cs.state.terminated)) {
          log(logLine('Pod started', { pod: podFullName(pod) }));
          return;
        }
      } catch (err) {
        log(logLine('Pod failed to start', { pod: podFullName(pod), err: (err as Error).message }));
      }
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
    failures.push(`${podFullName(pod)}: timeout error: pod containers not running after ${formatDuration(delay - FIRST_DELAY_MS)}`);
  }));
  return failures;
}
