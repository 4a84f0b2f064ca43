#!/usr/bin/env node
// `clet`, as installed: a file that exists before the build, so npm links the command at install time; it runs
// the built agent (whose main module starts on load), or says how to build it.
'use strict';
const { join } = require('node:path');
const { existsSync } = require('node:fs');
const built = join(__dirname, '..', 'dist', 'main.js');
if (!existsSync(built)) {
  process.stderr.write('clet: not built yet; run `npx nx build clet` first\n');
  process.exit(1);
}
require(built);
