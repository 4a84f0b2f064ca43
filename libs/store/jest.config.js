module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store',
  rootDir: __dirname,
};
