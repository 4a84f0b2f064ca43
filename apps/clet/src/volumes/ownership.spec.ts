// Ownership of the API-object volumes on a real directory (the tests run as root, so chown works): what the files,
// directories and links end up as for each volume kind with and without the pod's fsGroup, the token file's mode and
// owner, and the SetVolumeOwnership walk with its change policies.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Pod } from '../pods/api-types';
import type { ApiObjects } from './api-objects';
import { DATA_DIR, writeAtomically, type Payload } from './atomic-writer';
import { fsUserOf, requiresPermissionChange, setVolumeOwnership, type FsGroupChangePolicy } from './ownership';
import { ApiVolumeStep } from './volume-step';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clet-ownership-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `mode gid` of what a path names (through the volume's links), octal as `stat -L -c '%a %g'`. */
const stat = (p: string) => {
  const s = fs.statSync(p);
  return `${(s.mode & 0o7777).toString(8)} ${s.gid}`;
};
const owner = (p: string) => fs.statSync(p).uid;

const api: ApiObjects = {
  secret: async () => ({ data: { user: Buffer.from('admin').toString('base64'), pass: Buffer.from('s3cret').toString('base64') } }),
  configMap: async () => ({ data: { 'ca.crt': 'CA', a: 'one' } }),
  requestToken: async () => ({ spec: { expirationSeconds: 3600 }, status: { token: 'tok', expirationTimestamp: new Date(Date.now() + 3600_000).toISOString() } }),
};

const podWith = (volume: Record<string, unknown>, securityContext?: Record<string, unknown>, containers: Array<Record<string, unknown>> = [{ name: 'c' }]) =>
  ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers, volumes: [{ name: 'v', ...volume }], ...(securityContext ? { securityContext } : {}) } }) as unknown as Pod;

const token = { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } };
const caCrt = { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } };

describe('API-object volumes with and without fsGroup', () => {
  // [case, volume, pod securityContext, {path in volume: 'mode gid'}]; the volume root and its version directory are checked in every case.
  test.each([
    ['secret, no fsGroup: modes as given, root group', { secret: { secretName: 's' } }, undefined, { user: '644 0', pass: '644 0' }],
    ['secret, fsGroup: files gain group read, owned by the group', { secret: { secretName: 's' } }, { fsGroup: 2000 }, { user: '644 2000', pass: '644 2000' }],
    ['secret, fsGroup, defaultMode 0400: 0440', { secret: { secretName: 's', defaultMode: 0o400 } }, { fsGroup: 2000 }, { user: '440 2000', pass: '440 2000' }],
    ['secret, fsGroup, item mode 0600 in a subdirectory: 0640, the directory setgid', { secret: { secretName: 's', items: [{ key: 'pass', path: 'sub/p', mode: 0o600 }] } }, { fsGroup: 2000 }, { 'sub/p': '640 2000', sub: '2755 2000' }],
    ['secret, no fsGroup, defaultMode 0400: unchanged', { secret: { secretName: 's', defaultMode: 0o400 } }, { runAsUser: 1000 }, { user: '400 0' }],
    ['configMap, fsGroup, defaultMode 0600', { configMap: { name: 'c', defaultMode: 0o600 } }, { fsGroup: 3000 }, { a: '640 3000', 'ca.crt': '640 3000' }],
    ['configMap, no fsGroup', { configMap: { name: 'c' } }, undefined, { a: '644 0' }],
    ['downwardAPI, fsGroup, defaultMode 0400', { downwardAPI: { defaultMode: 0o400, items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }, { fsGroup: 2000 }, { ns: '440 2000' }],
    ['downwardAPI, fsGroup, item mode 0644', { downwardAPI: { items: [{ path: 'ns', mode: 0o644, fieldRef: { fieldPath: 'metadata.namespace' } }] } }, { fsGroup: 2000 }, { ns: '644 2000' }],
    ['projected, fsGroup: the token 0600 becomes 0640, the rest defaultMode plus group read', { projected: { defaultMode: 0o644, sources: [token, caCrt] } }, { fsGroup: 2000 }, { token: '640 2000', 'ca.crt': '644 2000' }],
    ['projected, fsGroup, defaultMode 0400', { projected: { defaultMode: 0o400, sources: [token, caCrt] } }, { fsGroup: 2000 }, { token: '640 2000', 'ca.crt': '440 2000' }],
    ['projected, no fsGroup, no runAsUser: the token has defaultMode', { projected: { defaultMode: 0o644, sources: [token, caCrt] } }, undefined, { token: '644 0', 'ca.crt': '644 0' }],
    ['projected, runAsUser only: the token 0600, no group change', { projected: { defaultMode: 0o644, sources: [token, caCrt] } }, { runAsUser: 1000 }, { token: '600 0', 'ca.crt': '644 0' }],
  ] as Array<[string, Record<string, unknown>, Record<string, unknown> | undefined, Record<string, string>]>)('%s', async (_, volume, sc, want) => {
    const dirs = await new ApiVolumeStep(api).setUp(podWith(volume, sc), dir);
    const root = dirs.get('v')!;
    const got = Object.fromEntries(Object.keys(want).map((p) => [p, stat(path.join(root, p))]));
    expect(got).toEqual(want);
    const fsGroup = sc?.fsGroup as number | undefined;
    // Directories: 0755 as AtomicWriter makes them; with an fsGroup its group, search and setgid.
    const dirMode = fsGroup === undefined ? '755 0' : `2755 ${fsGroup}`;
    expect([stat(root), stat(path.join(root, fs.readlinkSync(path.join(root, DATA_DIR))))]).toEqual([dirMode, dirMode]);
    // The ..data link itself belongs to the group too (upstream's Lchown).
    expect(fs.lstatSync(path.join(root, DATA_DIR)).gid).toBe(fsGroup ?? 0);
  });

  test.each([
    ['every container runs as the pod\'s runAsUser: the token is theirs', { runAsUser: 1000 }, [{ name: 'a' }, { name: 'b' }], 1000, '600 0'],
    ['the same uid set per container, with fsGroup', { fsGroup: 2000 }, [{ name: 'a', securityContext: { runAsUser: 1001 } }, { name: 'b', securityContext: { runAsUser: 1001 } }], 1001, '640 2000'],
    ['two uids: root keeps the token, fsGroup still makes it 0640', { runAsUser: 1000, fsGroup: 2000 }, [{ name: 'a' }, { name: 'b', securityContext: { runAsUser: 1001 } }], 0, '640 2000'],
    ['one container without a uid: root keeps the token at defaultMode', undefined, [{ name: 'a', securityContext: { runAsUser: 1000 } }, { name: 'b' }], 0, '644 0'],
  ] as Array<[string, Record<string, unknown> | undefined, Array<Record<string, unknown>>, number, string]>)('token owner: %s', async (_, sc, containers, uid, modeGid) => {
    const dirs = await new ApiVolumeStep(api).setUp(podWith({ projected: { defaultMode: 0o644, sources: [token, caCrt] } }, sc, containers), dir);
    const root = dirs.get('v')!;
    expect([owner(path.join(root, 'token')), stat(path.join(root, 'token'))]).toEqual([uid, modeGid]);
    // Only the token is given to the user; the other files stay root's.
    expect(owner(path.join(root, 'ca.crt'))).toBe(0);
  });

  test('init containers count for the token owner (upstream\'s FsUserFrom)', () => {
    const pod = podWith({}, { runAsUser: 1000 }, [{ name: 'a' }]);
    expect(fsUserOf(pod)).toBe(1000);
    pod.spec.initContainers = [{ name: 'i', securityContext: { runAsUser: 0 } }];
    expect(fsUserOf(pod)).toBeUndefined();
  });

  test('an unchanged volume is not rewritten at the next sync; a change is owned by the group before the switch', async () => {
    const step = new ApiVolumeStep(api);
    const pod = podWith({ secret: { secretName: 's', defaultMode: 0o400 } }, { fsGroup: 2000 });
    const root = (await step.setUp(pod, dir)).get('v')!;
    const first = fs.readlinkSync(path.join(root, DATA_DIR));
    await step.setUp(pod, dir);
    expect(fs.readlinkSync(path.join(root, DATA_DIR))).toBe(first);
    // A payload whose files lost the group (as another tool might leave them) is written again, owned.
    fs.chownSync(path.join(root, first, 'user'), 0, 0);
    await step.setUp(pod, dir);
    const second = fs.readlinkSync(path.join(root, DATA_DIR));
    expect(second).not.toBe(first);
    expect([stat(path.join(root, 'user')), stat(path.join(root, second))]).toEqual(['440 2000', '2755 2000']);
  });
});

describe('writeAtomically with an fsGroup', () => {
  const payload = (mode: number): Payload => new Map([['a', { data: Buffer.from('1'), mode }], ['d/b', { data: Buffer.from('2'), mode }]]);
  test('files, directories and the version are the group\'s; an unchanged payload writes nothing', async () => {
    const vol = path.join(dir, 'vol');
    expect(await writeAtomically(vol, payload(0o600), { fsGroup: 2000 })).toBe(true);
    expect(['a', 'd', 'd/b', '.'].map((p) => stat(path.join(vol, p)))).toEqual(['640 2000', '2755 2000', '640 2000', '2755 2000']);
    expect(await writeAtomically(vol, payload(0o600), { fsGroup: 2000 })).toBe(false);
    // Without the group the same payload is another volume: written again.
    expect(await writeAtomically(vol, payload(0o600))).toBe(true);
  });
});

describe('setVolumeOwnership (upstream SetVolumeOwnership)', () => {
  /** A volume: root, a file, a subdirectory with a file, a link to the file. */
  function volume(rootMode: number, rootGid: number): string {
    const root = path.join(dir, 'vol');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'f'), 'x');
    fs.chmodSync(path.join(root, 'f'), 0o600);
    fs.writeFileSync(path.join(root, 'sub', 'g'), 'y');
    fs.chmodSync(path.join(root, 'sub', 'g'), 0o400);
    fs.chmodSync(path.join(root, 'sub'), 0o700);
    fs.symlinkSync('f', path.join(root, 'link'));
    fs.chmodSync(root, rootMode);
    fs.chownSync(root, 0, rootGid);
    return root;
  }
  const summary = (root: string) => ['.', 'f', 'sub', 'sub/g'].map((p) => stat(path.join(root, p))).join(', ');

  test.each([
    ['no fsGroup: nothing changes', undefined, undefined, true, 0o755, 0, '755 0, 600 0, 700 0, 400 0'],
    ['read-only volume: group read, dirs search and setgid', 2000, undefined, true, 0o755, 0, '2755 2000, 640 2000, 2750 2000, 440 2000'],
    ['writable volume: group read-write', 2000, 'Always', false, 0o755, 0, '2775 2000, 660 2000, 2770 2000, 660 2000'],
    ['Always walks even when the root matches', 2000, 'Always', true, 0o2755, 2000, '2755 2000, 640 2000, 2750 2000, 440 2000'],
    ['OnRootMismatch skips when the root already matches', 2000, 'OnRootMismatch', true, 0o2755, 2000, '2755 2000, 600 0, 700 0, 400 0'],
    ['OnRootMismatch walks when the root\'s group differs', 2000, 'OnRootMismatch', true, 0o2755, 3000, '2755 2000, 640 2000, 2750 2000, 440 2000'],
    ['OnRootMismatch walks when the root lacks setgid', 2000, 'OnRootMismatch', true, 0o755, 2000, '2755 2000, 640 2000, 2750 2000, 440 2000'],
    ['OnRootMismatch walks when the root lacks group read', 2000, 'OnRootMismatch', true, 0o2711, 2000, '2751 2000, 640 2000, 2750 2000, 440 2000'],
  ] as Array<[string, number | undefined, FsGroupChangePolicy | undefined, boolean, number, number, string]>)('%s', async (_, fsGroup, changePolicy, readOnly, rootMode, rootGid, want) => {
    const root = volume(rootMode, rootGid);
    await setVolumeOwnership(root, fsGroup, { readOnly, changePolicy });
    expect(summary(root)).toBe(want);
  });

  test('a link gets the group itself; what it points to is not changed through it', async () => {
    const root = volume(0o755, 0);
    const outside = path.join(dir, 'outside');
    fs.writeFileSync(outside, 'z');
    fs.chmodSync(outside, 0o400);
    fs.symlinkSync(outside, path.join(root, 'out'));
    await setVolumeOwnership(root, 2000);
    expect([fs.lstatSync(path.join(root, 'link')).gid, fs.lstatSync(path.join(root, 'out')).gid]).toEqual([2000, 2000]);
    expect(stat(outside)).toBe('400 0');
  });

  test('requiresPermissionChange on a missing root or a file root', async () => {
    expect(await requiresPermissionChange(path.join(dir, 'nope'), 2000, true)).toBe(true);
    fs.writeFileSync(path.join(dir, 'file'), '');
    fs.chownSync(path.join(dir, 'file'), 0, 2000);
    expect(await requiresPermissionChange(path.join(dir, 'file'), 2000, true)).toBe(true);
  });
});
