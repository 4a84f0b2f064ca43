module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'clet',
  rootDir: __dirname,
};
