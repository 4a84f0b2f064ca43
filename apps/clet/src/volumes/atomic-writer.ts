// Writes a volume's files the way upstream's AtomicWriter does (pkg/volume/util/atomic_writer.go), so a container
// never sees half an update:
//   <dir>/..2026_11_26_02_40_00.123456789/<path>   the files of one version (a fresh timestamped directory)
//   <dir>/..data -> ..2026_11_26_02_40_00.123456789  switched by renaming a new symlink over it (atomic)
//   <dir>/<top-level name> -> ..data/<top-level name>  what the container opens
// An unchanged payload writes nothing; a changed one gets a new version directory, the switch, the user-visible
// links of new names, and the removal of names that left the payload and of the old version. With an owner
// (the pod's fsGroup, a token's fsUser) the new version is given to it before the switch, as upstream's setPerms
// hook, so a container never sees a file its group cannot read.
import * as fs from 'node:fs';
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
function unchanged(versionDir: string, payload: Payload, fsGroup: number | undefined): boolean {
  const present: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(versionDir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else present.push(r);
    }
  };
  try {
    walk('');
  } catch {
    return false;
  }
  if (present.length !== payload.size) return false;
  for (const [p, f] of payload) {
    try {
      const file = path.join(versionDir, p);
      const st = fs.statSync(file);
      if ((st.mode & 0o7777) !== ownedFileMode(f.mode, fsGroup)) return false;
      if ((fsGroup !== undefined && st.gid !== fsGroup) || (f.fsUser !== undefined && st.uid !== f.fsUser)) return false;
      if (!fs.readFileSync(file).equals(f.data)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Writes `payload` into `dir` (a read-only volume: an fsGroup gets group read); returns false when it was already
 * there. Throws on an invalid path.
 */
export function writeAtomically(dir: string, payload: Payload, owner: Pick<VolumeOwner, 'fsGroup'> = {}, now = new Date()): boolean {
  for (const p of payload.keys()) {
    const err = validatePayloadPath(p);
    if (err) throw new Error(err);
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const dataLink = path.join(dir, DATA_DIR);
  let oldVersion = '';
  try {
    oldVersion = fs.readlinkSync(dataLink);
  } catch {
    oldVersion = '';
  }
  if (oldVersion && unchanged(path.join(dir, oldVersion), payload, owner.fsGroup)) return false;

  const version = versionDirName(now);
  const versionDir = path.join(dir, version);
  fs.mkdirSync(versionDir, { mode: 0o755 });
  fs.chmodSync(versionDir, 0o755);
  for (const [p, f] of payload) {
    const file = path.join(versionDir, p);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    fs.writeFileSync(file, f.data, { mode: f.mode });
    fs.chmodSync(file, f.mode);
    if (f.fsUser !== undefined) fs.chownSync(file, f.fsUser, -1);
  }
  // The whole volume, not only the new version: on the first write the root directory is new too.
  setVolumeOwnership(dir, owner.fsGroup);
  // The switch: a new link under a temporary name renamed over the old one.
  const tmpLink = path.join(dir, DATA_DIR_TMP);
  fs.rmSync(tmpLink, { force: true });
  fs.symlinkSync(version, tmpLink);
  fs.renameSync(tmpLink, dataLink);

  const wanted = new Set([...payload.keys()].map(topLevel));
  for (const name of wanted) {
    const link = path.join(dir, name);
    try {
      fs.lstatSync(link);
    } catch {
      fs.symlinkSync(path.join(DATA_DIR, name), link);
    }
  }
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith('..') || wanted.has(name)) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
  if (oldVersion && oldVersion !== version) fs.rmSync(path.join(dir, oldVersion), { recursive: true, force: true });
  return true;
}
