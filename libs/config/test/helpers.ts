// Writes documents to a temporary folder so every validator table also runs through file loading.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ValidationError } from '../src';

export class TempDir {
  readonly dir = mkdtempSync(join(tmpdir(), 'cl-config-test-'));
  private n = 0;
  write(text: string, name = `doc-${this.n++}.yaml`): string {
    const p = join(this.dir, name);
    writeFileSync(p, text);
    return p;
  }
  writeDoc(obj: unknown, format: 'json' | 'yaml'): string {
    const text = format === 'json' ? JSON.stringify(obj, null, 2) : stringify(obj, { version: '1.1' });
    return this.write(text, `doc-${this.n++}.${format}`);
  }
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The messages a loader throws, or [] when it loads. */
export function loadErrors(load: () => unknown): string[] {
  try {
    load();
    return [];
  } catch (e) {
    if (e instanceof ValidationError) return e.errors.map((x) => x.message);
    throw e;
  }
}
