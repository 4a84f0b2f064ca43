// Garbage collection (container, sandbox, image) and container log rotation, as the kubelet's
// containerGC, realImageGCManager and container log manager do them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nanosToDate } from '@cl/cri';
import type { Container as CriContainer, CriClient } from '@cl/cri';
import { logLine } from './log';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID } from './runtime-spec';

export interface ContainerGCPolicy {
  /** Minimum age of a dead container before removal (ms). */
  minAgeMs: number;
  /** Dead instances kept per (pod, container); negative: no per-container limit. */
  maxPerPodContainer: number;
  /** Dead containers kept in total; negative: no global limit. */
  maxContainers: number;
}

const createdMs = (c: { createdAt: string }) => nanosToDate(c.createdAt)?.getTime() ?? 0;

/**
 * Removes dead containers beyond the policy (all of them for pods that are no longer desired), then
 * not-ready sandboxes without containers (keeping the newest of a desired pod). Returns what it removed.
 */
export async function collectContainers(cri: CriClient, policy: ContainerGCPolicy, isDesired: (uid: string) => boolean,
  log: (l: string) => void): Promise<{ containers: string[]; sandboxes: string[] }> {
  const removed = { containers: [] as string[], sandboxes: [] as string[] };
  const now = Date.now();
  const all = await cri.listContainers();
  const dead = all.filter((c) => c.state === 'CONTAINER_EXITED' && now - createdMs(c) > policy.minAgeMs && c.labels[LABEL_POD_UID]);
  const groups = new Map<string, CriContainer[]>();
  for (const c of dead) {
    const k = `${c.labels[LABEL_POD_UID]}/${c.labels[LABEL_CONTAINER_NAME] ?? c.metadata?.name}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const toRemove: CriContainer[] = [];
  const kept: CriContainer[] = [];
  for (const list of groups.values()) {
    list.sort((a, b) => createdMs(b) - createdMs(a));
    const uid = list[0].labels[LABEL_POD_UID];
    const keep = !isDesired(uid) ? 0 : policy.maxPerPodContainer < 0 ? list.length : policy.maxPerPodContainer;
    toRemove.push(...list.slice(keep));
    kept.push(...list.slice(0, keep));
  }
  if (policy.maxContainers >= 0 && kept.length > policy.maxContainers) {
    kept.sort((a, b) => createdMs(b) - createdMs(a));
    toRemove.push(...kept.slice(policy.maxContainers));
  }
  for (const c of toRemove) {
    try {
      await cri.removeContainer(c.id);
      removed.containers.push(c.id);
    } catch (e) {
      log(logLine('Failed to remove container', { containerID: c.id, err: (e as Error).message }));
    }
  }

  const removedSet = new Set(removed.containers);
  const live = all.filter((c) => !removedSet.has(c.id));
  const sandboxes = await cri.listPodSandbox();
  const byPod = new Map<string, typeof sandboxes>();
  for (const s of sandboxes) {
    const uid = s.labels[LABEL_POD_UID] ?? s.metadata?.uid;
    if (!uid) continue;
    byPod.set(uid, [...(byPod.get(uid) ?? []), s]);
  }
  for (const [uid, list] of byPod) {
    list.sort((a, b) => createdMs(b) - createdMs(a));
    const candidates = isDesired(uid) ? list.slice(1) : list;
    for (const s of candidates) {
      if (s.state === 'SANDBOX_READY' || live.some((c) => c.podSandboxId === s.id)) continue;
      try {
        await cri.removePodSandbox(s.id);
        removed.sandboxes.push(s.id);
      } catch (e) {
        log(logLine('Failed to remove sandbox', { podSandboxID: s.id, err: (e as Error).message }));
      }
    }
  }
  return removed;
}

export interface ImageGCPolicy { highThresholdPercent: number; lowThresholdPercent: number; minAgeMs: number; pinnedImages: string[] }

/**
 * Image GC: when the image filesystem is used above the high threshold, remove images no container
 * uses (oldest first seen first, never the sandbox image, never younger than minAge) until usage is
 * below the low threshold. `firstSeen` persists between runs.
 */
export async function collectImages(cri: CriClient, policy: ImageGCPolicy, firstSeen: Map<string, number>,
  log: (l: string) => void, usage?: () => { capacity: number; available: number }): Promise<string[]> {
  if (policy.highThresholdPercent >= 100) return [];
  const images = await cri.listImages();
  const now = Date.now();
  for (const img of images) if (!firstSeen.has(img.id)) firstSeen.set(img.id, now);
  for (const id of [...firstSeen.keys()]) if (!images.some((i) => i.id === id)) firstSeen.delete(id);

  let fsUsage = usage?.();
  if (!fsUsage) {
    const info = await cri.imageFsInfo();
    const mount = info.imageFilesystems[0]?.fsId?.mountpoint;
    if (!mount) return [];
    const s = fs.statfsSync(mount);
    fsUsage = { capacity: s.blocks * s.bsize, available: s.bavail * s.bsize };
  }
  const usedPercent = ((fsUsage.capacity - fsUsage.available) * 100) / fsUsage.capacity;
  if (usedPercent < policy.highThresholdPercent) return [];
  let toFree = fsUsage.capacity - fsUsage.available - (fsUsage.capacity * policy.lowThresholdPercent) / 100;
  log(logLine('Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold',
    { usage: Math.round(usedPercent), highThreshold: policy.highThresholdPercent, amountToFree: Math.round(toFree), lowThreshold: policy.lowThresholdPercent }));

  const inUse = new Set<string>();
  for (const c of await cri.listContainers()) {
    inUse.add(c.imageRef);
    if (c.imageId) inUse.add(c.imageId);
    if (c.image?.image) inUse.add(c.image.image);
  }
  const pinned = new Set(policy.pinnedImages);
  const candidates = images
    .filter((i) => !i.pinned && !inUse.has(i.id) && !i.repoTags.some((t) => pinned.has(t) || inUse.has(t)))
    .filter((i) => now - (firstSeen.get(i.id) ?? now) >= policy.minAgeMs)
    .sort((a, b) => (firstSeen.get(a.id) ?? 0) - (firstSeen.get(b.id) ?? 0));
  const removed: string[] = [];
  for (const img of candidates) {
    if (toFree <= 0) break;
    try {
      await cri.removeImage({ image: img.id });
      removed.push(img.id);
      toFree -= Number(img.size);
    } catch (e) {
      log(logLine('Failed to remove image', { imageID: img.id, err: (e as Error).message }));
    }
  }
  return removed;
}

/** "<name>.<YYYYMMDD-HHMMSS>" as upstream's log manager names rotated files. */
function rotatedSuffix(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/**
 * Rotates a running container's log when it exceeds maxBytes: rename, ask the runtime to reopen, and
 * keep at most maxFiles files (current + rotated).
 */
export async function rotateContainerLogs(cri: CriClient, maxBytes: number, maxFiles: number, log: (l: string) => void): Promise<number> {
  let rotated = 0;
  const running = await cri.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
  for (const c of running) {
    let logPath: string;
    try {
      logPath = (await cri.containerStatus(c.id)).logPath;
    } catch {
      continue;
    }
    if (!logPath) continue;
    const dir = path.dirname(logPath);
    const base = path.basename(logPath);
    const olds = () => fs.readdirSync(dir).filter((n) => n.startsWith(base + '.')).sort();
    try {
      // Oldest rotated files go first so that current + rotated never exceed maxFiles.
      const existing = olds();
      for (const n of existing.slice(0, Math.max(0, existing.length - (maxFiles - 1)))) fs.rmSync(path.join(dir, n), { force: true });
      if (fs.statSync(logPath).size <= maxBytes) continue;
      let target = `${logPath}.${rotatedSuffix(new Date())}`;
      for (let i = 1; fs.existsSync(target); i++) target = `${logPath}.${rotatedSuffix(new Date())}.${i}`;
      fs.renameSync(logPath, target);
      await cri.reopenContainerLog(c.id);
      rotated++;
      const after = olds();
      for (const n of after.slice(0, Math.max(0, after.length - (maxFiles - 1)))) fs.rmSync(path.join(dir, n), { force: true });
    } catch (e) {
      log(logLine('Failed to rotate log for container', { containerID: c.id, path: logPath, err: (e as Error).message }));
    }
  }
  return rotated;
}
