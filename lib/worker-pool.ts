import type { Worker } from 'node:worker_threads';

// A few worker threads running one task at a time each, with a hard deadline per task: a task still
// running at its deadline has its thread terminated (V8 stops it even inside a tight loop or a
// regular expression) and replaced, so code that runs away costs at most that deadline, and never
// the event loop of the server.

/** The task ran past its deadline and its thread was terminated. */
export class TaskDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the task was stopped after ${deadlineMs} ms`);
    this.name = 'TaskDeadlineError';
  }
}

/** The thread died under the task (out of memory, a crash), or could not start. */
export class TaskThreadError extends Error {
  constructor(cause: unknown) {
    super(`the task's thread failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'TaskThreadError';
  }
}

/** What a pool thread posts back for each task it is sent ({ id, task }). */
export type TaskReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export interface WorkerPoolOptions {
  /** Starts one thread; it answers each `{ id, task }` message with one TaskReply. */
  start(): Worker | Promise<Worker>;
  size: number;
  /** Time a task may run on its thread, queueing excluded. */
  deadlineMs: number;
}

export interface WorkerPool<Task, Result> {
  run(task: Task, options?: { signal?: AbortSignal; deadlineMs?: number }): Promise<Result>;
  /** Threads started so far, replacements included (tests). */
  readonly started: number;
  close(): Promise<void>;
}

interface Job {
  id: number;
  task: unknown;
  deadlineMs: number;
  signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Promise<Worker> | null;
  job: Job | null;
}

/**
 * A pool of `size` threads with a per-task deadline.
 * @example
 *   const pool = createWorkerPool<Task, Result>({ start: () => new Worker(script), size: 2, deadlineMs: 5_000 });
 *   const result = await pool.run(task, { signal }); // TaskDeadlineError when it runs away
 */
export function createWorkerPool<Task, Result>(options: WorkerPoolOptions): WorkerPool<Task, Result> {
  const slots: Slot[] = Array.from({ length: options.size }, () => ({ worker: null, job: null }));
  const queue: Job[] = [];
  let nextId = 0;
  let started = 0;
  let closed = false;

  // A thread that ran away or failed is terminated; its slot starts a fresh one for its next job.
  const retire = (slot: Slot, worker: Worker | null) => {
    slot.worker = null;
    void worker?.terminate();
  };

  const threadOf = (slot: Slot): Promise<Worker> => {
    if (slot.worker) return slot.worker;
    started++;
    const thread = Promise.resolve(options.start()).then((worker) => {
      worker.unref();
      // A thread that dies between jobs is replaced at the next one.
      worker.once('exit', () => {
        if (slot.worker === thread) slot.worker = null;
      });
      return worker;
    });
    slot.worker = thread;
    return thread;
  };

  const dispatch = () => {
    for (const slot of slots) {
      if (closed || queue.length === 0) return;
      if (slot.job) continue;
      const job = queue.shift()!;
      slot.job = job;
      void runOn(slot, job);
    }
  };

  const runOn = async (slot: Slot, job: Job) => {
    let worker: Worker;
    try {
      worker = await threadOf(slot);
    } catch (error) {
      slot.worker = null;
      slot.job = null;
      job.reject(new TaskThreadError(error));
      dispatch();
      return;
    }
    const onMessage = (reply: TaskReply) => {
      if (reply.id !== job.id) return;
      finish(reply.ok ? null : new Error(reply.message), reply.ok ? reply.value : undefined, true);
    };
    const onError = (error: Error) => finish(new TaskThreadError(error));
    const onExit = (code: number) => finish(new TaskThreadError(new Error(`exited with code ${code}`)));
    const finish = (error: Error | null, value?: unknown, threadStillGood = false) => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (threadStillGood) worker.unref();
      else retire(slot, worker);
      slot.job = null;
      if (error) job.reject(error);
      else job.resolve(value);
      dispatch();
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    const timer = setTimeout(() => finish(new TaskDeadlineError(job.deadlineMs)), job.deadlineMs);
    worker.ref();
    worker.postMessage({ id: job.id, task: job.task });
  };

  return {
    run(task, runOptions = {}) {
      if (closed) return Promise.reject(new TaskThreadError(new Error('pool closed')));
      const signal = runOptions.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<Result>((resolve, reject) => {
        const job: Job = {
          id: nextId++,
          task,
          deadlineMs: runOptions.deadlineMs ?? options.deadlineMs,
          signal,
          resolve: resolve as (v: unknown) => void,
          reject,
        };
        // A caller that gives up while its task still queues takes it out; a running task finishes or
        // meets its deadline, since stopping it would cost a thread.
        signal?.addEventListener(
          'abort',
          () => {
            const at = queue.indexOf(job);
            if (at < 0) return;
            queue.splice(at, 1);
            reject(signal.reason);
          },
          { once: true },
        );
        queue.push(job);
        dispatch();
      });
    },
    get started() {
      return started;
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new TaskThreadError(new Error('pool closed')));
      await Promise.all(
        slots.map(async (slot) => {
          const worker = await slot.worker?.catch(() => null);
          slot.worker = null;
          await worker?.terminate();
        }),
      );
    },
  };
}
