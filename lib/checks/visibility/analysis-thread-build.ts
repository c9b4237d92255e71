import { Worker, type ResourceLimits } from 'node:worker_threads';

// Loaded only inside a Next build, where the bundler compiles the worker script and resolves this
// inline `new Worker(new URL(…, import.meta.url))` form (the only form it recognises) to it. Kept in
// its own module because test runners that load lib/ as CommonJS cannot parse `import.meta`.
export function startCompiledAnalysisThread(resourceLimits: ResourceLimits): Worker {
  return new Worker(new URL('./analysis-worker.ts', import.meta.url), { resourceLimits });
}
