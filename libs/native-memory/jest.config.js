module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'native-memory',
  rootDir: __dirname,
};
