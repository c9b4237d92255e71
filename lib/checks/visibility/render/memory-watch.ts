// The renderer's memory watchdog. A page's script can allocate far past V8's heap limit (ArrayBuffers, canvas,
// DOM live outside it), so the limit that holds is measured from outside: while any page renders, the PSS of
// every Chromium renderer process is read every SAMPLE_MS, and a process over the budget is killed (SIGKILL,
// which a busy script cannot delay). All renderers together are held to the budget times the rendering slots,
// the largest killed first, so a page cannot spread its memory over frames of other sites either. The page
// whose process died sees it as a crash; its rendering asks `tripped()` to tell a kill for memory from any
// other crash.

import { rendererMemory } from './proc-rss';

const SAMPLE_MS = 100;

/** Renderer processes killed for memory by this process (tests). */
export const MEMORY_WATCH_STATS = { kills: 0 };

interface Watch {
  perProcess: number;
  total: number;
  startedAt: number;
}

const watches = new Set<Watch>();
let timer: NodeJS.Timeout | null = null;
let lastKillAt = -Infinity;

function sample(): void {
  if (watches.size === 0) return;
  // The tightest budgets of the renderings now running hold for all of them.
  let perProcess = Infinity;
  let total = Infinity;
  for (const w of watches) {
    perProcess = Math.min(perProcess, w.perProcess);
    total = Math.min(total, w.total);
  }
  const renderers = rendererMemory().sort((a, b) => b.pss - a.pss);
  let sum = renderers.reduce((n, r) => n + r.pss, 0);
  for (const r of renderers) {
    if (r.pss <= perProcess && sum <= total) break;
    kill(r.pid);
    sum -= r.pss;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
    MEMORY_WATCH_STATS.kills++;
    lastKillAt = performance.now();
  } catch {
    // already gone
  }
}

/** One rendering's watch: `tripped()` once a renderer was killed for memory since it began; `stop()` when done. */
export interface MemoryWatch {
  tripped(): boolean;
  stop(): void;
}

/**
 * Watches the renderers' memory while one page renders: `perProcessBytes` for any one renderer process,
 * `totalBytes` for all of them.
 * @example const watch = watchRendererMemory(512 * MB, 1024 * MB); try { … if (crashed && watch.tripped()) … } finally { watch.stop(); }
 */
export function watchRendererMemory(perProcessBytes: number, totalBytes: number): MemoryWatch {
  const watch: Watch = { perProcess: perProcessBytes, total: totalBytes, startedAt: performance.now() };
  watches.add(watch);
  timer ??= setInterval(sample, SAMPLE_MS).unref();
  return {
    tripped: () => lastKillAt >= watch.startedAt,
    stop: () => {
      watches.delete(watch);
      if (watches.size === 0 && timer) {
        clearInterval(timer);
        timer = null;
      }
    },
  };
}
