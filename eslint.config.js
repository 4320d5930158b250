// One lint config for every workspace (each package runs `eslint <dirs>` from its own folder;
// ESLint 9 finds this file by walking up).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/.next/**', '**/out/**', '**/generated/**', '**/test-results/**', '**/next-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Each app reads its environment once, in its env.ts (create-t3-turbo's habit).
    files: ['apps/**/*.ts', 'apps/**/*.tsx'],
    ignores: ['**/env.ts', '**/*.test.ts', '**/*.config.ts', '**/test/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration from env.ts.' }],
    },
  },
);
