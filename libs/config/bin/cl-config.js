#!/usr/bin/env node
// `cl-config`, as installed: this file is in the repository, so npm links the command at install time even on
// a fresh clone where dist/ is not built yet (a bin pointing into dist/ is skipped then, and npx goes looking
// in the registry). It runs the built command, or says how to build it.
'use strict';
const { join } = require('node:path');
const { existsSync } = require('node:fs');
const built = join(__dirname, '..', 'dist', 'bin', 'cl-config.js');
if (!existsSync(built)) {
  process.stderr.write('cl-config: not built yet; run `npx nx build config` first\n');
  process.exit(1);
}
process.exitCode = require(built).main(
  process.argv.slice(2),
  (s) => process.stdout.write(s + '\n'),
  (s) => process.stderr.write(s + '\n'),
);
