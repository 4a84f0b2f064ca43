import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAddonFile, loadMallocTrimmer, mallocTrimmer, trimMalloc } from './index';

const glibc = process.platform === 'linux' && Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'native-memory-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the addon is found in the package directory and, on glibc, trims', () => {
  expect(defaultAddonFile()).toBe(join(__dirname, '..', 'build', 'Release', 'native_memory.node'));
  const t = mallocTrimmer();
  expect([t.available, t.reason]).toEqual(glibc ? [true, ''] : [false, expect.any(String)]);
  // Garbage for malloc to hold, freed: a trim may or may not find whole pages to return; it must not throw.
  let keep: Buffer[] | null = Array.from({ length: 200 }, () => Buffer.alloc(64 * 1024, 1));
  expect(keep.length).toBe(200);
  keep = null;
  expect(typeof trimMalloc()).toBe('boolean');
});

test.each([
  ['no file', () => join(dir, 'missing.node'), /the native-memory addon did not load/],
  ['not a shared object', () => {
    const f = join(dir, 'garbage.node');
    writeFileSync(f, 'not an ELF file');
    return f;
  }, /the native-memory addon did not load/],
])('%s: a no-op that says why, never a throw', (_name, file, reason) => {
  const t = loadMallocTrimmer(file());
  expect(t.available).toBe(false);
  expect(t.reason).toMatch(reason);
  expect(t.trimMalloc()).toBe(false);
});
