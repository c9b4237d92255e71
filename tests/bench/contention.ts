// Ordinary checks on a machine busy with other work. The same checks of the test fixture sites (served HTML only,
// and rendered in Chromium) run first on the machine as it is, then while 2 × cores child processes burn CPU.
// Every check must answer a report, and the rendered ones a rendering: the analysis and rendering limits count the
// work's own processor time, so other processes' load may slow a check but must not fail it. Each phase starts with
// the analysis threads and the browser closed, so their start-up falls inside it too. Prints, per kind of check, the
// loaded median as a ratio of the quiet one.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { replaceAnalysisPool } from '@/lib/checks/visibility/analysis-pool';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { closeRenderer } from '@/lib/checks/visibility/render';
import { chromiumSettings } from '../support/chromium';
import { goodRoutes } from '../visibility/fixture-pages';
import { startFixtureSite, type FixtureRoute } from '../visibility/fixture-site';
import { spaRoutes } from '../visibility/render-site';
import { saveEnv } from '../support/saved-env';

const RUNS = 5;
// Each burner ends itself after this, so none outlives a bench that was killed before its cleanup ran.
const BURN_LIMIT_MS = 300_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Kind {
  name: string;
  routes: Record<string, FixtureRoute>;
  url: string;
  renderer: 'off' | 'chromium';
}

/** `count` processes that each keep one core busy until killed (or BURN_LIMIT_MS has passed). */
function burners(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', `for (const end = Date.now() + ${BURN_LIMIT_MS}; Date.now() < end; ) {}`], { stdio: 'ignore' }),
  );
}

async function stopBurners(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
    ),
  );
}

/** Closes the analysis pool (the next task starts fresh threads) and the browser. */
async function coldStart(): Promise<void> {
  await replaceAnalysisPool(null)?.close();
  await closeRenderer();
}

export async function benchContention() {
  const settings = chromiumSettings();
  const kinds: Kind[] = [{ name: 'served HTML (well-configured site)', routes: goodRoutes(), url: 'https://site.test/guide', renderer: 'off' }];
  if (settings?.mode.on) kinds.push({ name: 'rendered (single-page app)', routes: spaRoutes(), url: 'https://site.test/', renderer: 'chromium' });
  else console.log('[bench] contention: no Chromium executable found (set CHROMIUM_PATH); the rendered checks are skipped');

  const saved = saveEnv(['RENDERER', 'CHROMIUM_PATH']);
  if (settings?.mode.on) process.env.CHROMIUM_PATH = settings.mode.executablePath;
  const sites = await Promise.all(kinds.map((k) => startFixtureSite(k.routes)));
  const failures: string[] = [];

  const phase = async (label: string) => {
    await coldStart();
    const times = kinds.map(() => [] as number[]);
    for (let run = 0; run < RUNS; run++) {
      for (const [i, kind] of kinds.entries()) {
        process.env.RENDERER = kind.renderer;
        const started = performance.now();
        try {
          const { report } = await checkVisibility(kind.url, { hostMap: sites[i].hostMap(['site.test']) });
          times[i].push(performance.now() - started);
          const rendering = report.page.rendering;
          if (kind.renderer === 'chromium' && rendering.state !== 'rendered') failures.push(`${label}, ${kind.name}: rendering ${rendering.state} (${rendering.reason ?? ''})`);
        } catch (error) {
          failures.push(`${label}, ${kind.name}: no report (${error instanceof Error ? error.message : String(error)})`);
        }
      }
    }
    return times;
  };

  let load: ChildProcess[] = [];
  try {
    const cores = os.availableParallelism();
    const quietLoad = os.loadavg()[0];
    const quiet = await phase('quiet');
    load = burners(2 * cores);
    // The burners have started and the load average has begun to climb before the first loaded check.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const loaded = await phase(`${load.length} CPU burners`);
    const loadedLoad = os.loadavg()[0];
    await stopBurners(load);

    console.log(`[bench] contention: ${RUNS} checks of each kind, quiet (load average ${quietLoad.toFixed(1)} from other processes) then beside ${load.length} CPU-burning processes on ${cores} cores (load average ${loadedLoad.toFixed(1)} at the end)`);
    const ratios: Record<string, number> = {};
    for (const [i, kind] of kinds.entries()) {
      if (quiet[i].length === 0 || loaded[i].length === 0) continue;
      ratios[kind.name] = median(loaded[i]) / median(quiet[i]);
      console.log(`[bench] contention, ${kind.name}: quiet ${median(quiet[i]).toFixed(0)} ms, loaded ${median(loaded[i]).toFixed(0)} ms (median; slowest ${Math.max(...loaded[i]).toFixed(0)} ms): loaded / quiet ${ratios[kind.name].toFixed(2)}`);
    }
    const total = 2 * RUNS * kinds.length;
    console.log(`[bench] contention: ${total - failures.length} of ${total} checks answered a report${kinds.length > 1 ? ' (and a rendering where asked)' : ''}: ${failures.length === 0 ? 'ok' : 'FAILED'}`);
    for (const failure of failures) console.log(`[bench]   ${failure}`);
    if (failures.length > 0) process.exitCode = 1;
    return { ratios, failures };
  } finally {
    await stopBurners(load);
    saved.restore();
    await coldStart();
    await Promise.all(sites.map((s) => s.close()));
  }
}
