#!/usr/bin/env node
// Bundles a built binary's entry (tsc's output) and everything it requires into one file:
//   node tools/bundle.js <entry.js> <out.js>
// <out.js> is a small loader; the bundle is <out>.bundle.js beside it, with V8's code cache for it in
// <out>.bundle.cache (see below).
// Why: Node's module loader pays per file (resolving, stat-ing, reading package.json files, wrapping), and the
// node agent loads ~460 modules at every start; as one file, `clet --version` (which loads them all) takes
// 330 instead of 480 ms of CPU on a quiet machine (bench/clet-start has the start-up numbers). The output is
// CommonJS for Node 20 with the same behaviour; a linked source map points back at the TypeScript (through tsc's
// maps) for `node --enable-source-maps`.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const [entry, out] = process.argv.slice(2);
if (!entry || !out) {
  process.stderr.write('usage: node tools/bundle.js <entry.js> <out.js>\n');
  process.exit(2);
}
const result = esbuild.buildSync({
  entryPoints: [path.resolve(entry)],
  outfile: path.resolve(out.replace(/\.js$/, '.bundle.js')),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  // Whitespace and syntax only (names are kept, so stack traces still read): the start reads and compiles the
  // whole file before anything runs, ~3.0 -> 2.0 MB, ~10-20 ms of the start (bench/clet-start).
  minifyWhitespace: true,
  minifySyntax: true,
  // No keepNames (it costs ~40 ms of start-up): no code here reads a class's or function's .name; errors set
  // their own `name`.
  logLevel: 'warning',
  legalComments: 'linked',
});
if (result.errors.length > 0) process.exit(1);

// The loader compiles the bundle with V8's code cache: compiling 2 MB of JavaScript is the largest single cost of
// the agent's start after running it (bench/clet-start). The cache is made here by loading the bundle with
// `--version`, which runs every module body, and is only valid for this Node binary and these V8 flags: V8 checks
// and rejects a cache that does not match (another Node, --cpu-prof), and the bundle is then compiled as usual.
const bundle = path.basename(out).replace(/\.js$/, '.bundle.js');
const cache = bundle.replace(/\.js$/, '.cache');
const loader = `#!/usr/bin/env node
// Written by tools/bundle.js: runs ${bundle} as a CommonJS module, compiled with its code cache when V8 accepts it.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');
const { wrap } = require('node:module');
const file = join(__dirname, ${JSON.stringify(bundle)});
let cachedData;
try {
  cachedData = readFileSync(join(__dirname, ${JSON.stringify(cache)}));
} catch {
  cachedData = undefined;
}
// The bundle starts with the entry's "#!" line, which only a file run directly may have: it becomes a comment.
const script = new Script(wrap(readFileSync(file, 'utf8').replace(/^#!/, '//')), { filename: file, cachedData });
script.runInThisContext()(exports, require, module, file, __dirname);
// The build (below): once the module bodies have run, keep what V8 compiled for them.
if (process.env.CL_WRITE_CODE_CACHE) writeFileSync(process.env.CL_WRITE_CODE_CACHE, script.createCachedData());
`;
fs.writeFileSync(path.resolve(out), loader, { mode: 0o755 });
const cacheFile = path.join(path.dirname(path.resolve(out)), cache);
fs.rmSync(cacheFile, { force: true });
const made = spawnSync(process.execPath, [path.resolve(out), '--version'], { env: { ...process.env, CL_WRITE_CODE_CACHE: cacheFile }, stdio: ['ignore', 'ignore', 'inherit'] });
if (made.status !== 0 || !fs.existsSync(cacheFile)) {
  process.stderr.write(`bundle: making the code cache failed (exit ${made.status}); the bundle runs without it\n`);
}
