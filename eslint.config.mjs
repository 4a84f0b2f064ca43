import nx from '@nx/eslint-plugin';
import jsonParser from 'jsonc-eslint-parser';

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/.nx', '**/generated/**'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:test', onlyDependOnLibsWithTags: ['type:lib'] },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // A lib's package.json names what its code imports, so a service that installs the lib alone gets them.
    files: ['libs/*/package.json'],
    languageOptions: { parser: jsonParser },
    rules: {
      '@nx/dependency-checks': ['error', { checkMissingDependencies: true, checkObsoleteDependencies: true, checkVersionMismatches: true, ignoredFiles: ['{projectRoot}/**/*.spec.ts', '{projectRoot}/test/**', '{projectRoot}/jest.config.js', '{projectRoot}/eslint.config.mjs'] }],
    },
  },
];
