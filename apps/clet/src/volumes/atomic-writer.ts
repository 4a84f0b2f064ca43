// Writes a volume's files the way upstream's AtomicWriter does (pkg/volume/util/atomic_writer.go), so a container
// never sees half an update:
//   <dir>/..2026_11_26_02_40_00.123456789/<path>   the files of one version (a fresh timestamped directory)
//   <dir>/..data -> ..2026_11_26_02_40_00.123456789  switched by renaming a new symlink over it (atomic)
//   <dir>/<top-level name> -> ..data/<top-level name>  what the container opens
// An unchanged payload writes nothing; a changed one gets a new version directory, the switch, the user-visible
// links of new names, and the removal of names that left the payload and of the old version. With an owner
// (the pod's fsGroup, a token's fsUser) the new version is given to it before the switch, as upstream's setPerms
// hook, so a container never sees a file its group cannot read.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ownedFileMode, setVolumeOwnership, type VolumeOwner } from './ownership';

export interface FileProjection {
  data: Buffer;
  /** Permission bits (0644 unless the volume or item says otherwise); an fsGroup adds group read. */
  mode: number;
  /** The file's owner (projected tokens when every container runs as one uid). */
  fsUser?: number;
}

export type Payload = Map<string, FileProjection>;

export const DATA_DIR = '..data';
const DATA_DIR_TMP = '..data_tmp';

/** Upstream's path checks on a payload key: relative, no `..` element, no leading `..`, at most 4096 bytes. */
export function validatePayloadPath(p: string): string | null {
  if (p === '') return 'invalid path: must not be empty';
  if (Buffer.byteLength(p) > 4096) return `invalid path: must be less than or equal to 4096 characters`;
  if (path.isAbsolute(p)) return `invalid path: must be relative path: ${p}`;
  if (p.split('/').includes('..')) return `invalid path: must not contain '..': ${p}`;
  if (p.startsWith('..')) return `invalid path: must not start with '..': ${p}`;
  return null;
}

/** The timestamped directory name: `..` and the UTC time with nanosecond digits, as upstream's MkdirTemp pattern. */
function versionDirName(now: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}_${p(now.getUTCMonth() + 1)}_${p(now.getUTCDate())}_${p(now.getUTCHours())}_${p(now.getUTCMinutes())}_${p(now.getUTCSeconds())}`;
  return `..${stamp}.${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`;
}

function topLevel(p: string): string {
  return p.split('/')[0];
}

/** Whether the current version already holds exactly this payload (same names, bytes, modes and owners). */
async function unchanged(versionDir: string, payload: Payload, fsGroup: number | undefined): Promise<boolean> {
  const present: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await fsp.readdir(path.join(versionDir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r);
      else present.push(r);
    }
  };
  try {
    await walk('');
  } catch {
    return false;
  }
  if (present.length !== payload.size) return false;
  for (const [p, f] of payload) {
    try {
      const file = path.join(versionDir, p);
      const st = await fsp.stat(file);
      if ((st.mode & 0o7777) !== ownedFileMode(f.mode, fsGroup)) return false;
      if ((fsGroup !== undefined && st.gid !== fsGroup) || (f.fsUser !== undefined && st.uid !== f.fsUser)) return false;
      if (!(await fsp.readFile(file)).equals(f.data)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Writes `payload` into `dir` (a read-only volume: an fsGroup gets group read); resolves false when it was already
 * there. Rejects on an invalid path. Asynchronous because it runs in every pod's sync: with many pods starting at
 * once the filesystem is contended and a synchronous call held the agent's event loop (bench/pod-start --profile).
 */
export async function writeAtomically(dir: string, payload: Payload, owner: Pick<VolumeOwner, 'fsGroup'> = {}, now = new Date()): Promise<boolean> {
  for (const p of payload.keys()) {
    const err = validatePayloadPath(p);
    if (err) throw new Error(err);
  }
  await fsp.mkdir(dir, { recursive: true, mode: 0o755 });
  const dataLink = path.join(dir, DATA_DIR);
  const oldVersion = await fsp.readlink(dataLink).catch(() => '');
  if (oldVersion && (await unchanged(path.join(dir, oldVersion), payload, owner.fsGroup))) return false;

  const version = versionDirName(now);
  const versionDir = path.join(dir, version);
  await fsp.mkdir(versionDir, { mode: 0o755 });
  await fsp.chmod(versionDir, 0o755);
  for (const [p, f] of payload) {
    const file = path.join(versionDir, p);
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
    await fsp.writeFile(file, f.data, { mode: f.mode });
    await fsp.chmod(file, f.mode);
    if (f.fsUser !== undefined) await fsp.chown(file, f.fsUser, -1);
  }
  // The whole volume, not only the new version: on the first write the root directory is new too.
  await setVolumeOwnership(dir, owner.fsGroup);
  // The switch: a new link under a temporary name renamed over the old one.
  const tmpLink = path.join(dir, DATA_DIR_TMP);
  await fsp.rm(tmpLink, { force: true });
  await fsp.symlink(version, tmpLink);
  await fsp.rename(tmpLink, dataLink);

  const wanted = new Set([...payload.keys()].map(topLevel));
  for (const name of wanted) {
    const link = path.join(dir, name);
    const present = await fsp.lstat(link).then(() => true, () => false);
    if (!present) await fsp.symlink(path.join(DATA_DIR, name), link);
  }
  for (const name of await fsp.readdir(dir)) {
    if (name.startsWith('..') || wanted.has(name)) continue;
    await fsp.rm(path.join(dir, name), { recursive: true, force: true });
  }
  if (oldVersion && oldVersion !== version) await fsp.rm(path.join(dir, oldVersion), { recursive: true, force: true });
  return true;
}
