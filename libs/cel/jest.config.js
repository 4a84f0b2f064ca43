module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'cel',
  rootDir: __dirname,
};
