module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'field-manager',
  rootDir: __dirname,
};
