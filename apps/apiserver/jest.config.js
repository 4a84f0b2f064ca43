module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'apiserver',
  rootDir: __dirname,
};
