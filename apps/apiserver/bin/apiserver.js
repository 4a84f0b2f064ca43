#!/usr/bin/env node
// `apiserver`, as installed: a file that exists before the build, so npm links the command at install time;
// it runs the built server, or says how to build it.
'use strict';
const { join } = require('node:path');
const { existsSync } = require('node:fs');
const built = join(__dirname, '..', 'dist', 'main.js');
if (!existsSync(built)) {
  process.stderr.write('apiserver: not built yet; run `npx nx build apiserver` first\n');
  process.exit(1);
}
require(built)
  .main(process.argv.slice(2))
  .then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`Error: ${(e && e.stack) || e}\n`);
      process.exit(1);
    },
  );
