module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'node',
  rootDir: __dirname,
};
