// Shared Jest settings: @swc/jest for speed (type errors are the typecheck target's job), and the one
// ESM-only dependency (@marcbachmann/cel-js) transformed so Jest on Node 20 can load it.
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: { '^@cl/(.*)$': path.join(__dirname, 'libs/$1/src/index.ts') },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // Only a guard against a hung test, never a speed check: Jest's 5 s default failed a real etcd start on a
  // loaded fresh machine (first start, first fsync). Suites that start many peers raise it further.
  testTimeout: 120_000,
};
