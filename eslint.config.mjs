import coreWebVitals from 'eslint-config-next/core-web-vitals';
import typescript from 'eslint-config-next/typescript';
import regexp from 'eslint-plugin-regexp';

const config = [
  ...coreWebVitals,
  ...typescript,
  {
    ignores: ['node_modules/**', '.next/**', '.next-test/**', '.next-dev-test/**', '.data/**', '.rails/**', 'next-env.d.ts', 'test-results/**', '**/*.tmp.*'],
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Expressions run over fetched pages and site files: one that backtracks super-linearly lets a
    // hostile site freeze the event loop (issue 11 item 1: a 125-byte sitemap stalled it for 31 s).
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // One-way imports (pages/routes → adapters → pipeline → checks/credits/payments → store/problems): a cycle
    // means a lower layer reached up. docs/ARCHITECTURE.md draws the layers.
    rules: {
      'import/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
];

export default config;
