// postStart and preStop hooks (pkg/kubelet/lifecycle/handlers.go): exec through the runtime's ExecSync,
// httpGet to the pod (any status below 400 succeeds, as upstream), or sleep. A failure is described the way
// upstream's FailedPostStartHook/FailedPreStopHook events describe it.
import type { CriClient } from '@cl/cri';
import type { Pod } from './api-types';
import { runProbe, type ProbeSpec, type ProbeTarget } from './probe-handlers';

export interface LifecycleHandler {
  exec?: { command?: string[] };
  httpGet?: NonNullable<ProbeSpec['httpGet']>;
  tcpSocket?: NonNullable<ProbeSpec['tcpSocket']>;
  sleep?: { seconds: number };
}

/** Runs a hook; resolves with null on success, or the failure message. `budgetSeconds` bounds exec and HTTP. */
export async function runHook(handler: LifecycleHandler, pod: Pod, containerName: string, target: ProbeTarget, cri: Pick<CriClient, 'execSync'>, budgetSeconds: number): Promise<string | null> {
  const where = `for Container ${JSON.stringify(containerName)} in Pod ${JSON.stringify(`${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`)}`;
  if (handler.sleep) {
    await new Promise((r) => setTimeout(r, Math.max(0, handler.sleep!.seconds) * 1000));
    return null;
  }
  if (handler.exec) {
    const command = handler.exec.command ?? [];
    const r = await runProbe({ exec: { command }, timeoutSeconds: budgetSeconds }, target, cri);
    return r.success ? null : `Exec lifecycle hook (${JSON.stringify(command)}) ${where} failed - error: ${r.message.trim()}`;
  }
  if (handler.httpGet) {
    const r = await runProbe({ httpGet: handler.httpGet, timeoutSeconds: budgetSeconds }, target, cri);
    return r.success ? null : `HTTP lifecycle hook (${handler.httpGet.path ?? ''}) ${where} failed - error: ${r.message}`;
  }
  // tcpSocket is deprecated in hooks and upstream does nothing with it.
  return handler.tcpSocket ? null : `lifecycle hook ${where} has no handler`;
}
