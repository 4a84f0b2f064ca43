// Garbage collection (container, sandbox, image) and container log rotation, as the kubelet's
// containerGC, realImageGCManager and container log manager do them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { nanosToDate } from '@cl/cri';
import type { Container as CriContainer, CriClient } from '@cl/cri';
import { logLine, type LogFn } from './log';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID, containerIdOfLegacySymlink } from './runtime-spec';

export interface ContainerGCPolicy {
  /** Minimum age of a dead container before removal (ms). */
  minAgeMs: number;
  /** Dead instances kept per (pod, container); negative: no per-container limit. */
  maxPerPodContainer: number;
  /** Dead containers kept in total; negative: no global limit. */
  maxContainers: number;
}

const createdMs = (c: { createdAt: string }) => nanosToDate(c.createdAt)?.getTime() ?? 0;

/** Removes a container, its log files (current and rotated) and legacy symlinks, as upstream's removeContainer. */
async function removeContainerAndLogs(cri: CriClient, id: string, containerLogsDir: string | undefined): Promise<void> {
  if (containerLogsDir) {
    let links: string[] = [];
    try {
      links = fs.readdirSync(containerLogsDir).filter((n) => containerIdOfLegacySymlink(n) === id);
    } catch { /* no directory yet */ }
    for (const n of links) fs.rmSync(path.join(containerLogsDir, n), { force: true });
  }
  let logPath = '';
  try {
    logPath = (await cri.containerStatus(id)).logPath;
  } catch { /* gone already: RemoveContainer below says so */ }
  if (logPath) {
    const dir = path.dirname(logPath);
    const base = path.basename(logPath);
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch { /* no log directory */ }
    for (const n of names) if (n.startsWith(base)) fs.rmSync(path.join(dir, n), { force: true });
  }
  await cri.removeContainer(id);
}

/**
 * Removes dead containers beyond the policy, as upstream's evictContainers: every non-running
 * container older than minAge is evictable; units are (pod UID, container name). Units of pods that
 * are no longer desired go entirely; then each unit keeps its newest maxPerPodContainer; then, over
 * maxContainers, every unit is cut to an even share (at least 1) and the oldest overall go. Then
 * not-ready sandboxes without containers (keeping the newest of a desired pod) and, for pods no longer
 * desired, their log directories under podLogsDir. Returns what it removed.
 */
export interface GCDirectories {
  /** Pod log directories of pods no longer desired are removed (give it only once all sources are ready). */
  podLogsDir?: string;
  /** Legacy log symlinks of removed containers, and dangling ones of exited containers, are removed. */
  containerLogsDir?: string;
}

export async function collectContainers(cri: CriClient, policy: ContainerGCPolicy, isDesired: (uid: string) => boolean,
  log: LogFn, dirs: GCDirectories = {}): Promise<{ containers: string[]; sandboxes: string[]; logDirs: string[] }> {
  const { podLogsDir, containerLogsDir } = dirs;
  const removed = { containers: [] as string[], sandboxes: [] as string[], logDirs: [] as string[] };
  const now = Date.now();
  const all = await cri.listContainers();
  const units = new Map<string, CriContainer[]>();
  for (const c of all) {
    if (c.state === 'CONTAINER_RUNNING' || !c.labels[LABEL_POD_UID] || now - createdMs(c) <= policy.minAgeMs) continue;
    // A created, not yet started container of a desired pod is a start under way, not a dead one: counting it
    // (upstream does, but collects once a minute) would make it the unit's newest "dead" container and evict the
    // exited one that the pod's status reads lastState from.
    if (c.state === 'CONTAINER_CREATED' && isDesired(c.labels[LABEL_POD_UID])) continue;
    const k = `${c.labels[LABEL_POD_UID]}/${c.labels[LABEL_CONTAINER_NAME] ?? c.metadata?.name}`;
    units.set(k, [...(units.get(k) ?? []), c]);
  }
  const toRemove: CriContainer[] = [];
  // Newest first in each unit, so "keep n" is slice(0, n).
  for (const [k, list] of units) {
    list.sort((a, b) => createdMs(b) - createdMs(a));
    if (!isDesired(list[0].labels[LABEL_POD_UID])) {
      toRemove.push(...list);
      units.delete(k);
    }
  }
  const keepPerUnit = (n: number) => {
    for (const list of units.values()) toRemove.push(...list.splice(n));
  };
  if (policy.maxPerPodContainer >= 0) keepPerUnit(policy.maxPerPodContainer);
  const count = () => [...units.values()].reduce((n, l) => n + l.length, 0);
  if (policy.maxContainers >= 0 && count() > policy.maxContainers) {
    const nonEmpty = [...units.values()].filter((l) => l.length).length;
    keepPerUnit(Math.max(1, Math.floor(policy.maxContainers / Math.max(1, nonEmpty))));
    const rest = [...units.values()].flat().sort((a, b) => createdMs(a) - createdMs(b));
    toRemove.push(...rest.slice(0, Math.max(0, rest.length - policy.maxContainers)));
  }
  for (const c of toRemove) {
    try {
      await removeContainerAndLogs(cri, c.id, containerLogsDir);
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

  if (podLogsDir) {
    // <namespace>_<name>_<uid>: a directory whose pod is gone and has no sandbox left.
    const remainingPods = new Set([...byPod.keys()].filter((uid) => byPod.get(uid)!.some((s) => !removed.sandboxes.includes(s.id))));
    let names: string[] = [];
    try {
      names = fs.readdirSync(podLogsDir);
    } catch { /* not created yet */ }
    for (const n of names) {
      const uid = n.slice(n.lastIndexOf('_') + 1);
      if (n.split('_').length < 3 || isDesired(uid) || remainingPods.has(uid)) continue;
      try {
        fs.rmSync(path.join(podLogsDir, n), { recursive: true, force: true });
        removed.logDirs.push(n);
      } catch (e) {
        log(logLine('Failed to remove pod logs directory', { path: path.join(podLogsDir, n), err: (e as Error).message }));
      }
    }
  }
  if (containerLogsDir) await removeDanglingSymlinks(cri, containerLogsDir, log);
  return removed;
}

/**
 * Dangling legacy symlinks (their log file is gone) are removed unless their container still runs:
 * during a rotation the link dangles for a moment and must survive it.
 */
async function removeDanglingSymlinks(cri: CriClient, dir: string, log: LogFn): Promise<void> {
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.log'));
  } catch {
    return;
  }
  for (const n of names) {
    const link = path.join(dir, n);
    if (fs.existsSync(link)) continue; // the target exists
    const id = containerIdOfLegacySymlink(n);
    if (id) {
      try {
        if ((await cri.containerStatus(id)).state !== 'CONTAINER_EXITED') continue;
      } catch { /* container gone: the link goes */ }
    }
    try {
      fs.rmSync(link, { force: true });
    } catch (e) {
      log(logLine('Failed to remove container log dead symlink', { path: link, err: (e as Error).message }));
    }
  }
}

export interface ImageGCPolicy { highThresholdPercent: number; lowThresholdPercent: number; minAgeMs: number; pinnedImages: string[] }

/**
 * Image GC: when the image filesystem is used above the high threshold, remove images no container
 * uses (oldest first seen first, never the sandbox image, never younger than minAge) until usage is
 * below the low threshold. `firstSeen` persists between runs.
 */
export async function collectImages(cri: CriClient, policy: ImageGCPolicy, firstSeen: Map<string, number>,
  log: LogFn, usage?: () => { capacity: number; available: number }): Promise<string[]> {
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

/** "YYYYMMDD-HHMMSS" in local time, upstream's rotated-file timestamp (Go layout 20060102-150405). */
function rotatedSuffix(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

const GZ = '.gz';
const TMP = '.tmp';

/**
 * One container's rotation, as upstream's rotateLog: drop leftovers of an interrupted rotation
 * (`.tmp` files, plain files whose `.gz` exists), remove the oldest rotated files so that at most
 * maxFiles-2 remain, gzip every remaining plain one, then rename the live log to
 * `<log>.<timestamp>` and ask the runtime to reopen it (renaming back if it cannot). The result is at
 * most maxFiles files: the live log, one plain rotated file and maxFiles-2 compressed ones.
 */
async function rotateOne(cri: CriClient, id: string, logPath: string, maxFiles: number): Promise<boolean> {
  const dir = path.dirname(logPath);
  const base = path.basename(logPath);
  const target = `${logPath}.${rotatedSuffix(new Date())}`;
  // Two rotations within one second would share a name; the next round rotates instead.
  if (fs.existsSync(target) || fs.existsSync(target + GZ)) return false;
  let rotated = fs.readdirSync(dir).filter((n) => n.startsWith(base + '.')).map((n) => path.join(dir, n));
  const unused = rotated.filter((f) => f.endsWith(TMP) || (!f.endsWith(GZ) && rotated.includes(f + GZ)));
  for (const f of unused) fs.rmSync(f, { force: true });
  rotated = rotated.filter((f) => !unused.includes(f)).sort();
  const excess = Math.max(0, rotated.length - Math.max(0, maxFiles - 2));
  for (const f of rotated.slice(0, excess)) fs.rmSync(f, { force: true });
  for (const f of rotated.slice(excess)) {
    if (f.endsWith(GZ)) continue;
    const mode = fs.statSync(f).mode & 0o777;
    fs.writeFileSync(f + TMP, zlib.gzipSync(fs.readFileSync(f)), { mode });
    fs.renameSync(f + TMP, f + GZ);
    fs.rmSync(f, { force: true });
  }
  fs.renameSync(logPath, target);
  try {
    await cri.reopenContainerLog(id);
  } catch (e) {
    fs.renameSync(target, logPath);
    throw new Error(`failed to reopen container log ${JSON.stringify(id)}: ${(e as Error).message}`);
  }
  return true;
}

/**
 * Rotates the logs of running containers whose live log reached maxBytes (upstream's container log
 * manager, run every containerLogMonitorInterval). A missing live log is reopened first. Returns how
 * many logs were rotated.
 */
export async function rotateContainerLogs(cri: CriClient, maxBytes: number, maxFiles: number, log: LogFn): Promise<number> {
  let count = 0;
  const running = (await cri.listContainers()).filter((c) => c.state === 'CONTAINER_RUNNING');
  for (const c of running) {
    let logPath: string;
    try {
      logPath = (await cri.containerStatus(c.id)).logPath;
    } catch (e) {
      log(logLine('Failed to get container status', { containerID: c.id, err: (e as Error).message }));
      continue;
    }
    if (!logPath) continue;
    try {
      let size: number;
      try {
        size = fs.statSync(logPath).size;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await cri.reopenContainerLog(c.id);
        size = fs.statSync(logPath).size;
      }
      if (size < maxBytes) continue;
      if (await rotateOne(cri, c.id, logPath, maxFiles)) count++;
    } catch (e) {
      log(logLine('Failed to rotate log for container', { containerID: c.id, path: logPath, err: (e as Error).message }));
    }
  }
  return count;
}
