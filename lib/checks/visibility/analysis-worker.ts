import { parentPort } from 'node:worker_threads';
import { announceReady, type TaskReply } from '@/lib/worker-pool';
import { runAnalysisTask, type AnalysisTask } from './analysis';

// The thread behind analysis-pool.ts: one task at a time, synchronously, as it arrives.

const port = parentPort!;
port.on('message', ({ id, task }: { id: number; task: AnalysisTask }) => {
  let reply: TaskReply;
  try {
    reply = { id, ok: true, value: runAnalysisTask(task) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});

// Last, once the analysis modules above have loaded: the pool counts a task's time only from here on.
announceReady(port);
