import coreWebVitals from 'eslint-config-next/core-web-vitals';
import typescript from 'eslint-config-next/typescript';
import regexp from 'eslint-plugin-regexp';

const config = [
  ...coreWebVitals,
  ...typescript,
  {
    ignores: ['node_modules/**', '.next/**', '.next-test/**', '.next-dev-test/**', '.data/**', '.rails/**', 'next-env.d.ts', 'test-results/**', '**/*.tmp.*', 'tests/bench/x402-reference/.next/**'],
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Expressions run over fetched pages and site files: one that backtracks super-linearly lets a
    // hostile site freeze the event loop (a 125-byte sitemap can stall one such expression for 31 s).
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
  {
    // The bottom layers never reach up: the store, the checks and the error vocabulary know nothing of the
    // pipeline, payments, credits, billing, MCP or HTTP. (Type-only imports count too: a bottom layer that
    // needs a higher layer's type has its boundary in the wrong place.)
    files: ['lib/store/**', 'lib/checks/**', 'lib/outbound/**', 'lib/problems.ts', 'lib/price.ts', 'lib/config.ts', 'lib/abort.ts', 'lib/worker-pool.ts', 'lib/canonical-json.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: ['@/lib/paid-call/*', '@/lib/payments/*', '@/lib/credits/*', '@/lib/billing/*', '@/lib/transports/*', '@/lib/reports/*', '@/lib/session/*', '@/lib/http/*', '@/lib/discovery/*', '@/lib/docs/*', '@/lib/endpoints', '@/lib/runtime', '@/app/*'],
          message: 'A bottom layer (store, checks, problems, price) must not import a higher one: see docs/ARCHITECTURE.md.',
        }],
      }],
    },
  },
];

export default config;
