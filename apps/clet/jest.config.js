module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'clet',
  rootDir: __dirname,
  // jose (service account tokens) is ESM-only, like cel-js (the preset's): let @swc/jest turn them into CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!(@marcbachmann/cel-js|jose)/)'],
};
