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

/** The task waited for a free thread longer than its queue deadline and was taken out of the queue unrun. */
export class TaskQueueTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    super(`the task waited ${waitedMs} ms for a free thread`);
    this.name = 'TaskQueueTimeoutError';
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
  /** Time a task may wait for a free thread; past it, TaskQueueTimeoutError. Unset: it waits as long as it takes. */
  queueDeadlineMs?: number;
}

export interface WorkerPool<Task, Result> {
  run(task: Task, options?: { signal?: AbortSignal; deadlineMs?: number; queueDeadlineMs?: number }): Promise<Result>;
  /** Threads started so far, replacements included (tests). */
  readonly started: number;
  close(): Promise<void>;
}

interface Job {
  id: number;
  task: unknown;
  deadlineMs: number;
  signal: AbortSignal | undefined;
  /** Fires TaskQueueTimeoutError while the job still queues; cleared once a thread takes it. */
  queueTimer: ReturnType<typeof setTimeout> | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Promise<Worker> | null;
  job: Job | null;
}

/**
 * A pool of `size` threads with a per-task deadline, and optionally a deadline on the wait for a thread.
 * @example
 *   const pool = createWorkerPool<Task, Result>({ start: () => new Worker(script), size: 2, deadlineMs: 5_000, queueDeadlineMs: 10_000 });
 *   const result = await pool.run(task, { signal }); // TaskDeadlineError when it runs away, TaskQueueTimeoutError when it waits too long
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
      clearTimeout(job.queueTimer);
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
          queueTimer: undefined,
          resolve: resolve as (v: unknown) => void,
          reject,
        };
        const dequeue = (reason: unknown) => {
          const at = queue.indexOf(job);
          if (at < 0) return;
          queue.splice(at, 1);
          clearTimeout(job.queueTimer);
          reject(reason);
        };
        // A caller that gives up while its task still queues takes it out; a running task finishes or
        // meets its deadline, since stopping it would cost a thread.
        signal?.addEventListener('abort', () => dequeue(signal.reason), { once: true });
        queue.push(job);
        // Behind threads busy with tasks that run to their deadlines, a queued task would wait for all of
        // them: past its queue deadline it gives up unrun, so its caller fails cleanly instead of hanging.
        const queueDeadlineMs = runOptions.queueDeadlineMs ?? options.queueDeadlineMs;
        if (queueDeadlineMs !== undefined) {
          job.queueTimer = setTimeout(() => dequeue(new TaskQueueTimeoutError(queueDeadlineMs)), queueDeadlineMs);
        }
        dispatch();
      });
    },
    get started() {
      return started;
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        clearTimeout(job.queueTimer);
        job.reject(new TaskThreadError(new Error('pool closed')));
      }
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
