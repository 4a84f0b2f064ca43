#!/usr/bin/env node
// Bundles a built binary's entry (tsc's output) and everything it requires into one file:
//   node tools/bundle.js <entry.js> <out.js>
// Why: Node's module loader pays per file (resolving, stat-ing, reading package.json files, wrapping), and the
// node agent loads ~460 modules at every start; as one file, `clet --version` (which loads them all) takes
// 330 instead of 480 ms of CPU on a quiet machine (bench/clet-start has the start-up numbers). The output is
// CommonJS for Node 20 with the same behaviour; a linked source map points back at the TypeScript (through tsc's
// maps) for `node --enable-source-maps`.
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const [entry, out] = process.argv.slice(2);
if (!entry || !out) {
  process.stderr.write('usage: node tools/bundle.js <entry.js> <out.js>\n');
  process.exit(2);
}
const result = esbuild.buildSync({
  entryPoints: [path.resolve(entry)],
  outfile: path.resolve(out),
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
