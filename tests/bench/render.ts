// The rendered view's cost: the wall time rendering adds to a check of the fixture single-page app,
// as a ratio against the same check unrendered, and the memory 10 concurrent rendered checks take: this
// process plus every Chromium process it started (summed from /proc), peak above idle.
import { checkVisibility } from '@/lib/checks/visibility/check';
import { closeRenderer } from '@/lib/checks/visibility/render';
import { descendantsMemory } from '@/lib/checks/visibility/render/proc-rss';
import { chromiumSettings } from '../support/chromium';
import { startFixtureSite } from '../visibility/fixture-site';
import { spaRoutes } from '../visibility/render-site';
import { saveEnv } from '../support/saved-env';

const HOSTS = ['site.test'];
const MB = 1024 * 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** This process and its Chromium processes, in bytes: RSS summed (shared pages counted in each process) and PSS. */
function total() {
  const browser = descendantsMemory() ?? { rss: 0, pss: 0 };
  const own = process.memoryUsage().rss;
  return { rss: own + browser.rss, pss: own + browser.pss };
}

export async function benchRender() {
  const settings = chromiumSettings();
  if (!settings?.mode.on) {
    console.log('[bench] visibility-render: no Chromium executable found (set CHROMIUM_PATH); skipped');
    return null;
  }
  const site = await startFixtureSite(spaRoutes());
  const hostMap = site.hostMap(HOSTS);
  const saved = saveEnv(['RENDERER', 'CHROMIUM_PATH']);
  const run = (renderer: 'off' | 'chromium') => {
    process.env.RENDERER = renderer;
    return checkVisibility('https://site.test/', { hostMap });
  };
  try {
    process.env.CHROMIUM_PATH = settings.mode.executablePath;
    await run('off'); // the analysis threads start here, not inside a measurement
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = total();

    // (1) Memory: 10 checks at once, rendering on (default RENDER_CONCURRENCY 2, RENDER_QUEUE 8), browser cold.
    const peak = { ...idle };
    const sample = () => {
      const now = total();
      peak.rss = Math.max(peak.rss, now.rss);
      peak.pss = Math.max(peak.pss, now.pss);
    };
    const timer = setInterval(sample, 100);
    const results = await Promise.all(Array.from({ length: 10 }, () => run('chromium')));
    sample();
    clearInterval(timer);
    const states = results.map((r) => r.report.page.rendering.state);
    const count = (s: string) => states.filter((x) => x === s).length;
    const above = { rss: (peak.rss - idle.rss) / MB, pss: (peak.pss - idle.pss) / MB };
    console.log(`[bench] rendering durations, queue wait included (ms): ${results.map((r) => r.report.page.rendering.durationMs).sort((a, b) => a - b).join(', ')}`);
    console.log(`[bench] 10 concurrent rendered checks: idle ${(idle.rss / MB).toFixed(0)} MB (this process, no browser yet); renderings: ${count('rendered')} rendered, ${count('skipped')} skipped, ${count('failed')} failed`);
    console.log(`[bench] peak above idle, this process + every Chromium process: PSS ${above.pss.toFixed(0)} MB (target < 600); RSS summed ${above.rss.toFixed(0)} MB (counts Chromium's shared pages once per process)`);

    // (2) Time: the same check unrendered (baseline) and rendered, browser warm, one at a time.
    const plain: number[] = [];
    const rendered: number[] = [];
    for (let i = 0; i < 5; i++) {
      plain.push(await timed(() => run('off')));
      rendered.push(await timed(() => run('chromium')));
    }
    const ratio = median(rendered) / median(plain);
    console.log(`[bench] fixture single-page app: check ${median(plain).toFixed(0)} ms unrendered (baseline), ${median(rendered).toFixed(0)} ms rendered (warm browser): ratio ${ratio.toFixed(2)}, ${(median(rendered) - median(plain)).toFixed(0)} ms added`);
    return { idle, peak, above, states, plain: median(plain), rendered: median(rendered), ratio };
  } finally {
    saved.restore();
    await closeRenderer();
    await site.close();
  }
}
