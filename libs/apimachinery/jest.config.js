module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'apimachinery',
  rootDir: __dirname,
};
