#!/usr/bin/env node
// Creates the skeleton of a lib or app with the targets every project has (lint, typecheck, test, build).
// Usage: node tools/new-project.js lib <name> | app <name>
const fs = require('node:fs');
const path = require('node:path');

const [kind, name] = process.argv.slice(2);
if (!['lib', 'app'].includes(kind) || !name) {
  console.error('usage: node tools/new-project.js lib|app <name>');
  process.exit(2);
}
const root = path.join(kind === 'lib' ? 'libs' : 'apps', name);
const write = (file, text) => {
  const full = path.join(root, file);
  if (fs.existsSync(full)) return;
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, text);
};
const json = (o) => JSON.stringify(o, null, 2) + '\n';

write('package.json', json({
  name: kind === 'lib' ? `@cl/${name}` : `@cl/${name}-app`,
  version: '0.1.0',
  private: kind === 'app',
  license: 'Apache-2.0',
  main: 'dist/index.js',
  types: 'dist/index.d.ts',
  files: ['dist'],
  dependencies: {},
}));
write('project.json', json({
  name,
  $schema: '../../node_modules/nx/schemas/project-schema.json',
  sourceRoot: `${root}/src`,
  projectType: kind === 'lib' ? 'library' : 'application',
  tags: [`type:${kind}`],
  targets: {
    build: { executor: 'nx:run-commands', outputs: [`{projectRoot}/dist`], options: { command: `tsc -p ${root}/tsconfig.build.json` } },
    typecheck: { executor: 'nx:run-commands', options: { command: `tsc -p ${root}/tsconfig.json --noEmit` } },
    lint: { executor: 'nx:run-commands', options: { command: `eslint ${root}` } },
    test: { executor: 'nx:run-commands', options: { command: `jest -c ${root}/jest.config.js` } },
  },
}));
write('tsconfig.json', json({
  extends: '../../tsconfig.base.json',
  compilerOptions: { types: ['node', 'jest'] },
  include: ['src/**/*.ts', 'test/**/*.ts'],
}));
write('tsconfig.build.json', json({
  extends: '../../tsconfig.base.json',
  // Other @cl libs resolve through node_modules to their built dist, so each project compiles only itself.
  compilerOptions: { rootDir: 'src', outDir: 'dist', paths: {}, tsBuildInfoFile: 'dist/.tsbuildinfo' },
  include: ['src/**/*.ts'],
  exclude: ['src/**/*.spec.ts'],
}));
write('jest.config.js', `module.exports = {\n  ...require('../../jest.preset.js'),\n  displayName: '${name}',\n  rootDir: __dirname,\n};\n`);
write('src/index.ts', `export {};\n`);
console.log(`created ${root}`);
