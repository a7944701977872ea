// Lint for chainvisor and the simulated node: type-aware rules where a mistake costs an operator (a
// floating promise in a program whose job is to never lose track of a process), unused code, and
// import hygiene. `npm test` runs it (and the formatter's check) beside the tests.
import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'release/', 'node_modules/', '.tmp/', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      // Promises: every one awaited, returned, or explicitly let go with `void`.
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test() and describe() return promises the runner itself tracks.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // Unused code.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': 'error',
      'no-useless-catch': 'error',
      // Imports: types imported as types, each module once, in one order.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: true }],
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // A variable read by a closure before its one assignment stays a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Upgrade names and plan files are checked for control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read answers of real servers whose shapes they assert on.
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
