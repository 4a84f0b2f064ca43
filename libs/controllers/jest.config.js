module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'controllers',
  rootDir: __dirname,
};
