module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'rbac',
  rootDir: __dirname,
};
