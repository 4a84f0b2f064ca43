const preset = require('../../jest.preset.js');

module.exports = {
  ...preset,
  displayName: 'jwt-authn',
  rootDir: __dirname,
  // jose, openid-client and oauth4webapi are ESM-only, like cel-js: let @swc/jest turn them into CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!(@marcbachmann/cel-js|jose|openid-client|oauth4webapi)/)'],
};
