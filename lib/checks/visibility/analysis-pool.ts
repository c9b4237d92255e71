import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { createWorkerPool, type WorkerPool } from '@/lib/worker-pool';
import type { AnalysisResult, AnalysisResults, AnalysisTask } from './analysis';

// The visibility check's parsing and scoring of what a site sent runs on these threads.
// Each expression and loop over fetched content is meant to be linear, but a mistake there would let one
// site freeze every request the server handles; on a pool thread it costs at most ANALYSIS_CPU_BUDGET_MS of
// that thread's processor time (or the wall-clock backstop, four times that), and the check then fails uncharged.

/**
 * Processor time one task may use on its thread; a 512 KB page takes well under a second. Counted on the
 * thread itself, from when the task reached a loaded thread, so neither a thread's start-up nor a machine
 * busy with other work (which gives the thread a fraction of a core) brings an honest page near it.
 */
const ANALYSIS_CPU_BUDGET_MS = 5_000;
/**
 * A task that waits longer than this for a free thread is given up unrun (TaskQueueTimeoutError): two tasks
 * spending their budgets take 5 s on a quiet machine, so a wait of 10 s means the threads are swamped, and the
 * check fails cleanly (uncharged, not counted as costly) rather than waiting behind every queued task.
 */
const ANALYSIS_QUEUE_DEADLINE_MS = 10_000;
/** Two threads: enough for checks to overlap, few enough that a stuck one leaves most cores alone. */
const ANALYSIS_THREADS = 2;
// A runaway allocation ends the thread (and fails the task) rather than growing the server's heap.
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256 };

async function startAnalysisThread(): Promise<Worker> {
  if (process.env.NEXT_RUNTIME) return (await import('./analysis-thread-build')).startCompiledAnalysisThread(RESOURCE_LIMITS);
  // Under tsx and vitest the worker script is still TypeScript: load it through tsx.
  const script = path.join(__dirname, 'analysis-worker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, { eval: true, resourceLimits: RESOURCE_LIMITS });
}

type AnalysisPool = WorkerPool<AnalysisTask, AnalysisResult>;
let pool: AnalysisPool | null = null;

/** The process's analysis pool, started on first use. */
export function analysisPool(): AnalysisPool {
  pool ??= createWorkerPool({
    start: startAnalysisThread,
    size: ANALYSIS_THREADS,
    cpuBudgetMs: ANALYSIS_CPU_BUDGET_MS,
    queueDeadlineMs: ANALYSIS_QUEUE_DEADLINE_MS,
  });
  return pool;
}

/**
 * Puts `next` in place of the process's pool and returns the one it replaced (tests that need a thread
 * to run away, which the real analysis must never do).
 * @example const real = replaceAnalysisPool(spinningPool); ...; replaceAnalysisPool(real);
 */
export function replaceAnalysisPool(next: AnalysisPool | null): AnalysisPool | null {
  const previous = pool;
  pool = next;
  return previous;
}

/**
 * Runs one analysis task off the event loop.
 * @throws TaskDeadlineError when it uses up its processor time or holds its thread to the backstop (its thread is replaced), TaskQueueTimeoutError
 *   when it waits past ANALYSIS_QUEUE_DEADLINE_MS for a thread, TaskThreadError when its thread dies, the
 *   signal's reason when the caller gives up while it queues.
 *   `cpuBudgetMs` replaces ANALYSIS_CPU_BUDGET_MS (tests).
 * @example const plan = await analyse({ kind: 'sitemap-plan', robots, sitemap }, { signal });
 */
export function analyse<T extends AnalysisTask>(
  task: T,
  options: { signal?: AbortSignal; cpuBudgetMs?: number } = {},
): Promise<AnalysisResults[T['kind']]> {
  return analysisPool().run(task, options) as Promise<AnalysisResults[T['kind']]>;
}
