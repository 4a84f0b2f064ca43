module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'kube-client',
  rootDir: __dirname,
};
