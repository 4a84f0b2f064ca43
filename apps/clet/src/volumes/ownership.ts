// Who owns a volume's files (upstream's SetVolumeOwnership in pkg/volume/volume_linux.go and FsUserFrom in
// pkg/volume/util): with the pod's `securityContext.fsGroup` every file, directory and link of the volume gets that
// group; files and directories gain group (and owner) read (rw for writable volumes), directories also search and the
// setgid bit, so what is created in them later keeps the group. Links keep their mode (a chmod would reach the file
// they point to and undo the volume's defaultMode). The walk is children first, the root last, as upstream's
// walkDeep, so a root that already matches means a finished walk. Asynchronous: a pod with an fsGroup and a large
// volume must not hold the agent's event loop (its other pods, probes, status) while the walk runs.
import type { Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { Pod } from '../pods/api-types';

/** What upstream passes to a volume's SetUp: the pod's fsGroup, and the uid every container runs as (if one). */
export interface VolumeOwner {
  fsGroup?: number;
  fsUser?: number;
}

export type FsGroupChangePolicy = 'Always' | 'OnRootMismatch';

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** The mode a file of mode `mode` has once the volume's ownership is set (read-only volumes: group read). */
export function ownedFileMode(mode: number, fsGroup: number | undefined, readOnly = true): number {
  return fsGroup === undefined ? mode : mode | (readOnly ? RO_MASK : RW_MASK);
}

/**
 * OnRootMismatch's test (upstream's requiresPermissionChange): the walk is needed unless the root is a directory of
 * the group whose mode holds the wanted bits and setgid.
 */
export async function requiresPermissionChange(root: string, fsGroup: number, readOnly: boolean): Promise<boolean> {
  let st: Stats;
  try {
    st = await fsp.stat(root);
  } catch {
    return true;
  }
  if (st.gid !== fsGroup || !st.isDirectory()) return true;
  const wanted = (readOnly ? RO_MASK : RW_MASK) | EXEC_MASK;
  return (st.mode & wanted) !== wanted || (st.mode & SETGID) === 0;
}

async function changeFilePermission(p: string, st: Stats, fsGroup: number, readOnly: boolean): Promise<void> {
  await fsp.lchown(p, -1, fsGroup);
  if (st.isSymbolicLink()) return;
  let mask = readOnly ? RO_MASK : RW_MASK;
  if (st.isDirectory()) mask |= SETGID | EXEC_MASK;
  await fsp.chmod(p, (st.mode & 0o7777) | mask);
}

async function walkDeep(p: string, visit: (p: string, st: Stats) => Promise<void>): Promise<void> {
  const st = await fsp.lstat(p);
  if (st.isDirectory()) for (const name of await fsp.readdir(p)) await walkDeep(path.join(p, name), visit);
  await visit(p, st);
}

/**
 * Gives `dir` and everything under it to `fsGroup` (nothing without one). `changePolicy` OnRootMismatch skips the
 * walk when the root already matches; the API-object volumes pass none, as upstream, since their new version
 * directories must be walked while the root matches from the first write on.
 */
export async function setVolumeOwnership(dir: string, fsGroup: number | undefined, opts: { readOnly?: boolean; changePolicy?: FsGroupChangePolicy } = {}): Promise<void> {
  if (fsGroup === undefined) return;
  const readOnly = opts.readOnly ?? true;
  if (opts.changePolicy === 'OnRootMismatch' && !(await requiresPermissionChange(dir, fsGroup, readOnly))) return;
  await walkDeep(dir, (p, st) => changeFilePermission(p, st, fsGroup, readOnly));
}

type SecurityContext = { runAsUser?: number; fsGroup?: number } | undefined;

/**
 * The uid every init and regular container runs as (container runAsUser, else the pod's), or none when one has
 * none or two differ: upstream's FsUserFrom, the owner of projected token files.
 */
export function fsUserOf(pod: Pod): number | undefined {
  const podUser = (pod.spec.securityContext as SecurityContext)?.runAsUser;
  let user: number | undefined;
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    const u = (c.securityContext as SecurityContext)?.runAsUser ?? podUser;
    if (u === undefined || (user !== undefined && u !== user)) return undefined;
    user = u;
  }
  return user;
}

/** The pod's owner of its API-object volumes. */
export function volumeOwnerOf(pod: Pod): VolumeOwner {
  const fsGroup = (pod.spec.securityContext as SecurityContext)?.fsGroup;
  const fsUser = fsUserOf(pod);
  return { ...(fsGroup !== undefined ? { fsGroup } : {}), ...(fsUser !== undefined ? { fsUser } : {}) };
}
