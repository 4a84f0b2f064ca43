module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'healthz',
  rootDir: __dirname,
};
