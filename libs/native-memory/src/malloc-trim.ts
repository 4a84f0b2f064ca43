// glibc's malloc_trim(0) through this package's own addon (native/native_memory.c), built by `npm install`
// (the package's install script runs node-gyp). Where it did not build (no compiler) or cannot load (another
// libc or platform, an addon built for another Node-API), trimMalloc() is a no-op that returns false and
// `reason` says why: giving memory back is an optimisation, never a reason for a server not to start.
import { dirname, join } from 'node:path';

export interface MallocTrimmer {
  /** True when the addon loaded and this libc has malloc_trim. */
  readonly available: boolean;
  /** Why it is not available ('' when it is). */
  readonly reason: string;
  /** Calls malloc_trim(0): true when it gave memory back to the kernel, false when none or not available. */
  trimMalloc(): boolean;
}

interface Addon {
  trimMalloc(): boolean;
  hasMallocTrim: boolean;
}

/**
 * The addon's path in this package's directory, found at run time: the package's own package.json (also when
 * this code is bundled into an app, where __dirname is the bundle's directory), else next to this file.
 */
export function defaultAddonFile(): string {
  let root: string;
  try {
    // A file path looked up at run time, not an import (a relative path would be wrong once bundled).
    // eslint-disable-next-line @nx/enforce-module-boundaries
    root = dirname(require.resolve('@cl/native-memory/package.json'));
  } catch {
    root = join(__dirname, '..');
  }
  return join(root, 'build', 'Release', 'native_memory.node');
}

/** Loads the addon from `file` (tests pass another); never throws. */
export function loadMallocTrimmer(file: string = defaultAddonFile()): MallocTrimmer {
  const noop = (reason: string): MallocTrimmer => ({ available: false, reason, trimMalloc: () => false });
  const m = { exports: {} as Partial<Addon> };
  try {
    // process.dlopen, not require: a bundler must not try to inline or resolve the .node file.
    process.dlopen(m, file);
  } catch (e) {
    return noop(`the native-memory addon did not load (${(e as Error)?.message ?? e})`);
  }
  const addon = m.exports;
  if (typeof addon.trimMalloc !== 'function') return noop(`${file} is not the native-memory addon`);
  if (addon.hasMallocTrim !== true) return noop('this C library has no malloc_trim (not glibc)');
  const trim = addon.trimMalloc;
  return { available: true, reason: '', trimMalloc: () => trim() === true };
}

let shared: MallocTrimmer | undefined;

/** The process's trimmer, loaded on first use. */
export function mallocTrimmer(): MallocTrimmer {
  return (shared ??= loadMallocTrimmer());
}

/** malloc_trim(0) where glibc has it: true when memory went back to the kernel; false (a no-op) elsewhere. */
export function trimMalloc(): boolean {
  return mallocTrimmer().trimMalloc();
}
