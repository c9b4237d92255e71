import fs from 'node:fs';
import type { MessagePort, Worker } from 'node:worker_threads';

// A few worker threads running one task at a time each, with a hard limit per task: a task still running
// at its limit has its thread terminated (V8 stops it even inside a tight loop or a regular expression) and
// replaced, so code that runs away costs at most that limit, and never the event loop of the server.
//
// The limit is the processor time the task's own thread used, counted from when the task reached a thread
// that had finished loading: on a machine busy with other work a thread gets a fraction of a core, and a
// limit in wall-clock time would stop honest tasks there while a hostile one on a quiet machine spends it
// all. A wall-clock backstop, several times the budget, still bounds how long a thread is held.

/** The task used up its processor time (`cpu`), or held its thread to the wall-clock backstop (`wall`); its thread was terminated. */
export class TaskDeadlineError extends Error {
  constructor(
    readonly limit: 'cpu' | 'wall',
    readonly deadlineMs: number,
  ) {
    super(limit === 'cpu' ? `the task was stopped after ${deadlineMs} ms of processor time` : `the task was stopped after ${deadlineMs} ms`);
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

/** The thread died under the task (out of memory, a crash), or could not start (`starting`: before the task ran). */
export class TaskThreadError extends Error {
  constructor(
    cause: unknown,
    readonly starting = false,
  ) {
    super(`the task's thread failed${starting ? ' to start' : ''}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'TaskThreadError';
  }
}

/**
 * What a pool thread posts once its script has loaded, before any task: the pool starts a task's clocks only
 * then, and reads the thread's processor time by its Linux thread id (null elsewhere).
 */
interface ThreadReady {
  ready: true;
  tid: number | null;
}

/**
 * Tells the pool this thread is ready. Call it last in the thread's script, once everything it needs is loaded.
 * @example announceReady(parentPort!);
 */
export function announceReady(port: MessagePort): void {
  let tid: number | null = null;
  try {
    // "<pid>/task/<tid>": the only way to learn the calling thread's kernel id from JavaScript.
    tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop()) || null;
  } catch {
    // not Linux: the pool falls back to the thread's event-loop activity
  }
  port.postMessage({ ready: true, tid } satisfies ThreadReady);
}

/** What a pool thread posts back for each task it is sent ({ id, task }). */
export type TaskReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export interface WorkerPoolOptions {
  /** Starts one thread; it posts ThreadReady once loaded (announceReady), then answers each `{ id, task }` with one TaskReply. */
  start(): Worker | Promise<Worker>;
  size: number;
  /** Processor time a task may use on its thread, counted once the thread is ready: queueing and start-up excluded. */
  cpuBudgetMs: number;
  /** Wall-clock time a task may hold its thread, however little processor time it was given. Default: WALL_FACTOR × cpuBudgetMs. */
  wallDeadlineMs?: number;
  /** Time a task may wait for a free thread; past it, TaskQueueTimeoutError. Unset: it waits as long as it takes. */
  queueDeadlineMs?: number;
  /** Time a new thread may take to load and post ThreadReady; past it, TaskThreadError (starting). Default START_DEADLINE_MS. */
  startDeadlineMs?: number;
}

export interface WorkerPool<Task, Result> {
  /** `cpuBudgetMs` replaces the pool's budget for this task, and its wall-clock backstop becomes WALL_FACTOR times it. */
  run(task: Task, options?: { signal?: AbortSignal; cpuBudgetMs?: number; queueDeadlineMs?: number }): Promise<Result>;
  /** Threads started so far, replacements included (tests). */
  readonly started: number;
  close(): Promise<void>;
}

/** The wall-clock backstop as a multiple of the processor-time budget: room for a machine where a thread gets a quarter of a core. */
const WALL_FACTOR = 4;
/** Loading a thread's script is our own code, not the site's: generous, and never counted against a task. */
const START_DEADLINE_MS = 30_000;
// Below this a check of a thread's processor time would run more often than the figure itself changes.
const MIN_CPU_CHECK_MS = 5;
// A figure that could not be read (the thread ending meanwhile) is tried again soon; the backstop bounds the rest.
const UNREAD_CPU_RETRY_MS = 100;

interface Job {
  id: number;
  task: unknown;
  cpuBudgetMs: number;
  wallDeadlineMs: number;
  signal: AbortSignal | undefined;
  /** Fires TaskQueueTimeoutError while the job still queues; cleared once a thread takes it. */
  queueTimer: ReturnType<typeof setTimeout> | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  /** Processor time the thread has used so far, in ms; NaN when it could not be read this time. */
  cpuMs(): number;
}

interface Slot {
  thread: Promise<Thread> | null;
  job: Job | null;
}

const isReady = (message: unknown): message is ThreadReady =>
  typeof message === 'object' && message !== null && (message as { ready?: unknown }).ready === true;

/**
 * Reads a thread's processor time from /proc, in ms: schedstat counts nanoseconds where the kernel keeps
 * scheduler statistics; stat counts clock ticks (USER_HZ, 100 a second on every Linux architecture Node runs on).
 * Null when neither can be read (not Linux, or no such thread).
 */
function procCpuClock(tid: number): (() => number) | null {
  const fromSchedstat = () => Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  const fromStat = () => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  for (const read of [fromSchedstat, fromStat]) {
    try {
      // A thread that loaded its script has run: zero means the kernel does not keep this figure.
      if (read() > 0) {
        return () => {
          try {
            return read();
          } catch {
            return NaN;
          }
        };
      }
    } catch {
      // try the next source
    }
  }
  return null;
}

/** The thread once it posted ThreadReady, with its processor-time clock; its start-up is not any task's. */
function whenReady(worker: Worker, startDeadlineMs: number): Promise<Thread> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, ready?: ThreadReady) => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (error) {
        void worker.terminate();
        reject(error);
        return;
      }
      worker.unref();
      // Elsewhere than Linux: the thread's event-loop activity, which leaves out its start-up but counts
      // the time it waited for a core.
      const cpuMs = (ready?.tid ? procCpuClock(ready.tid) : null) ?? (() => worker.performance.eventLoopUtilization().active);
      resolve({ worker, cpuMs });
    };
    const onMessage = (message: unknown) => {
      if (isReady(message)) done(null, message);
    };
    const onError = (error: Error) => done(error);
    const onExit = (code: number) => done(new Error(`exited with code ${code} before it was ready`));
    const timer = setTimeout(() => done(new Error(`not ready within ${startDeadlineMs} ms`)), startDeadlineMs);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

/**
 * A pool of `size` threads with a per-task processor-time budget and wall-clock backstop, and optionally a
 * deadline on the wait for a thread.
 * @example
 *   const pool = createWorkerPool<Task, Result>({ start: () => new Worker(script), size: 2, cpuBudgetMs: 5_000, queueDeadlineMs: 10_000 });
 *   const result = await pool.run(task, { signal }); // TaskDeadlineError when it runs away, TaskQueueTimeoutError when it waits too long
 */
export function createWorkerPool<Task, Result>(options: WorkerPoolOptions): WorkerPool<Task, Result> {
  const slots: Slot[] = Array.from({ length: options.size }, () => ({ thread: null, job: null }));
  const queue: Job[] = [];
  let nextId = 0;
  let started = 0;
  let closed = false;

  // A thread that ran away or failed is terminated; its slot starts a fresh one for its next job.
  const retire = (slot: Slot, worker: Worker) => {
    slot.thread = null;
    void worker.terminate();
  };

  const threadOf = (slot: Slot): Promise<Thread> => {
    if (slot.thread) return slot.thread;
    started++;
    const thread = Promise.resolve()
      .then(() => options.start())
      .then((worker) => whenReady(worker, options.startDeadlineMs ?? START_DEADLINE_MS));
    thread.then(
      // A thread that dies between jobs is replaced at the next one.
      ({ worker }) => worker.once('exit', () => {
        if (slot.thread === thread) slot.thread = null;
      }),
      () => {
        if (slot.thread === thread) slot.thread = null;
      },
    );
    slot.thread = thread;
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
    let thread: Thread;
    try {
      thread = await threadOf(slot);
    } catch (error) {
      slot.job = null;
      job.reject(new TaskThreadError(error, true));
      dispatch();
      return;
    }
    const { worker } = thread;
    const onMessage = (reply: TaskReply) => {
      if (reply.id !== job.id) return;
      finish(reply.ok ? null : new Error(reply.message), reply.ok ? reply.value : undefined, true);
    };
    const onError = (error: Error) => finish(new TaskThreadError(error));
    const onExit = (code: number) => finish(new TaskThreadError(new Error(`exited with code ${code}`)));
    const finish = (error: Error | null, value?: unknown, threadStillGood = false) => {
      clearTimeout(cpuTimer);
      clearTimeout(wallTimer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (threadStillGood) worker.unref();
      else retire(slot, worker);
      slot.job = null;
      if (error) job.reject(error);
      else job.resolve(value);
      dispatch();
    };
    const cpuAtStart = thread.cpuMs();
    const checkCpu = () => {
      const used = thread.cpuMs() - cpuAtStart;
      if (used >= job.cpuBudgetMs) {
        finish(new TaskDeadlineError('cpu', job.cpuBudgetMs));
        return;
      }
      // One thread uses at most as much processor time as wall-clock time passes, so the budget cannot run
      // out before what is left of it has passed: no need to look sooner.
      cpuTimer = setTimeout(checkCpu, Number.isNaN(used) ? UNREAD_CPU_RETRY_MS : Math.max(MIN_CPU_CHECK_MS, job.cpuBudgetMs - used));
    };
    let cpuTimer = setTimeout(checkCpu, job.cpuBudgetMs);
    const wallTimer = setTimeout(() => finish(new TaskDeadlineError('wall', job.wallDeadlineMs)), job.wallDeadlineMs);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.ref();
    worker.postMessage({ id: job.id, task: job.task });
  };

  return {
    run(task, runOptions = {}) {
      if (closed) return Promise.reject(new TaskThreadError(new Error('pool closed')));
      const signal = runOptions.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const cpuBudgetMs = runOptions.cpuBudgetMs ?? options.cpuBudgetMs;
      const wallDeadlineMs = runOptions.cpuBudgetMs === undefined ? (options.wallDeadlineMs ?? cpuBudgetMs * WALL_FACTOR) : cpuBudgetMs * WALL_FACTOR;
      return new Promise<Result>((resolve, reject) => {
        const job: Job = {
          id: nextId++,
          task,
          cpuBudgetMs,
          wallDeadlineMs,
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
        // meets its limit, since stopping it would cost a thread.
        signal?.addEventListener('abort', () => dequeue(signal.reason), { once: true });
        queue.push(job);
        // Behind threads busy with tasks that run to their limits, a queued task would wait for all of
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
          const thread = await slot.thread?.catch(() => null);
          slot.thread = null;
          await thread?.worker.terminate();
        }),
      );
    },
  };
}
