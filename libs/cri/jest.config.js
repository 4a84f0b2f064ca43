module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'cri',
  rootDir: __dirname,
};
