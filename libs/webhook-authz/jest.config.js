module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-authz',
  rootDir: __dirname,
};
