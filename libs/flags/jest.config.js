module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'flags',
  rootDir: __dirname,
};
