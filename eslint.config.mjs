import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

/** Architecture boundaries (issue 9): each zone forbids files under `target` to import from `from`. */
const boundaries = [
  {
    target: './backend',
    from: ['./gateway', './adapters', './dashboard', './runtime'],
    message: 'The backend imports nothing from the gateway, the adapters or the dashboard.',
  },
  {
    target: './adapters',
    from: ['./gateway', './dashboard', './runtime'],
    // The gateway's error vocabulary (codes, statuses, public messages) and its query parser are the contract the
    // adapters render and parse against; nothing else of the gateway is theirs to import.
    except: ['./core/errors.ts', './core/query.ts'],
    message:
      'Adapters import only their own types, the backend record types and the gateway error/query contract.',
  },
  {
    target: './adapters',
    from: ['./backend'],
    except: ['./records.ts'],
    message: 'Adapters know the backend only by its record types.',
  },
  {
    target: './gateway',
    from: ['./dashboard', './runtime'],
    message: 'gateway/ imports nothing from dashboard/ or the composition root.',
  },
  {
    target: './gateway/http',
    from: ['./gateway/store/embedded', './gateway/store/shared'],
    message: 'The HTTP layer knows only the Store interface, never a concrete store.',
  },
  {
    target: ['./dashboard', './gateway/admin', './gateway/accounts'],
    from: ['./gateway/store/embedded', './gateway/store/shared'],
    message:
      'Accounts are reached through the accounts service over the Store interface, never a concrete store.',
  },
  {
    target: './dashboard',
    from: ['./gateway/admin'],
    message: 'The dashboard reaches accounts only through the accounts service.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'build/**',
      'node_modules/**',
      'data/**',
      'test-artifacts/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    plugins: { import: importPlugin },
    settings: { 'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } } },
    rules: { 'import/no-restricted-paths': ['error', { zones: boundaries }] },
  },
  {
    // The process entry stays at dist/gateway/main.js (the Docker image and docs name it); it only starts the
    // composition root. The CLI's entry takes the composed config check from it. These two alone may import it.
    files: ['gateway/main.ts', 'gateway/cli/main.ts'],
    rules: { 'import/no-restricted-paths': 'off' },
  },
);
