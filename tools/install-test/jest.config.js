module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'install-test',
  rootDir: __dirname,
};
