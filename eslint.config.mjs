import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

/** Architecture boundaries (docs/gateway.md "Boundaries"): each zone forbids files under `target` to import from `from`. */
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
    from: ['./dashboard', './console', './runtime'],
    message: 'gateway/ imports nothing from dashboard/, console/ or the composition root.',
  },
  {
    target: './gateway/http',
    from: ['./gateway/store/embedded', './gateway/store/shared'],
    message: 'The HTTP layer knows only the Store interface, never a concrete store.',
  },
  {
    target: ['./dashboard', './console', './gateway/admin', './gateway/accounts'],
    from: ['./gateway/store/embedded', './gateway/store/shared'],
    message:
      'Accounts are reached through the accounts service over the Store interface, never a concrete store.',
  },
  {
    target: './dashboard',
    from: ['./gateway/admin'],
    message: 'The dashboard reaches accounts only through the accounts service.',
  },
  {
    target: './console',
    from: ['./gateway/admin', './runtime'],
    message: 'The console reaches accounts through the accounts service and the store ports only.',
  },
  {
    target: './gateway/store',
    from: ['./gateway/policy'],
    message:
      'The store stores what it is given: rules (gateway/policy) are applied before it, never inside it.',
  },
  {
    target: './gateway/metrics',
    from: ['./gateway/http'],
    message:
      'Metrics measure the store ports and the pipeline from outside; they import nothing of the HTTP layer.',
  },
  {
    target: './gateway/backends',
    from: ['./gateway/http'],
    message:
      'Connectors to backends import nothing of the HTTP layer (shared record checks live in gateway/backends).',
  },
];

const STORE_INTERNALS_MESSAGE =
  "Benches build stores through createStore (gateway/store/index.ts), never from a concrete store's files.";

/** bench ↛ store internals: every bench but the Lua cost bench (the named exception below). */
const benchZone = {
  target: './bench',
  from: ['./gateway/store/embedded', './gateway/store/shared'],
  message: STORE_INTERNALS_MESSAGE,
};

/** The named exception: bench/run/admit-lua.ts prices the shared store's admission script, so it reads that alone. */
const LUA_BENCH = 'bench/run/admit-lua.ts';
const luaBenchZones = [
  { target: `./${LUA_BENCH}`, from: ['./gateway/store/embedded'], message: STORE_INTERNALS_MESSAGE },
  {
    target: `./${LUA_BENCH}`,
    from: ['./gateway/store/shared'],
    except: ['./lua-admit.ts', './layout.ts', './step.ts'],
    message: 'The Lua cost bench reads the admission script, its key layout and its arguments, nothing else.',
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
    rules: { 'import/no-restricted-paths': ['error', { zones: [...boundaries, benchZone] }] },
  },
  {
    files: [LUA_BENCH],
    rules: { 'import/no-restricted-paths': ['error', { zones: [...boundaries, ...luaBenchZones] }] },
  },
  {
    // The process entry stays at dist/gateway/main.js (the Docker image and docs name it); it only starts the
    // composition root. The CLI's entry takes the composed config check from it. These two alone may import it.
    files: ['gateway/main.ts', 'gateway/cli/main.ts'],
    rules: { 'import/no-restricted-paths': 'off' },
  },
);
