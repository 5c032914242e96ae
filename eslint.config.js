import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.tools/**',
      'dist/**',
      'renderer/dist/**',
      'out/**',
      'artifacts/**',
      'coverage/**',
      'test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['main/api/explorer/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { ...globals.browser, SwaggerUIBundle: 'readonly', SwaggerUIStandalonePreset: 'readonly' },
    },
  },
  {
    // runs inside the QuickJS script sandbox, not in Node
    files: ['main/rule-engine/script/tbel-runtime.js', 'main/rule-engine/script/script-runner.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.es2021, InternalError: 'readonly' } },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
);
