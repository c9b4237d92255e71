// The remote renderer (RENDERER_URL, `npm run renderer`) against this process's own Chromium. Two figures:
// (1) one rendered check's time through a renderer server in a process of its own ÷ the same check rendered
// in-process (run alternately, medians); (2) the p50 latency of an unpaid 402 from `next start` while 10 rendered
// checks run through that server, renderer in-process vs remote: where Chromium runs decides whose cores it takes.
import os from 'node:os';
import path from 'node:path';
import { createKey } from '@/lib/credits/ledger';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { closeRenderer } from '@/lib/checks/visibility/render';
import { openSqliteStore } from '@/lib/store/sqlite';
import { chromiumSettings } from '../support/chromium';
import { startRendererServer } from '../support/renderer-server';
import { startServer, TEST_SECRET } from '../support/server';
import { validReadinessBody } from '../support/runtime';
import { startFixtureSite } from '../visibility/fixture-site';
import { spaRoutes } from '../visibility/render-site';
import { load } from './load';
import { saveEnv } from '../support/saved-env';

const RUNS = 8;
const RENDERING_CHECKS = 10;
const HOST = 'spa.pac-fixture.net';
const PRELOAD = path.resolve(__dirname, '../support/fake-internet.mjs');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchRenderer() {
  const settings = chromiumSettings();
  if (!settings) {
    console.log('[bench] renderer: no Chromium executable found (set CHROMIUM_PATH); skipped');
    return null;
  }
  const renderer = await startRendererServer({ CHROMIUM_PATH: settings.mode.executablePath, RENDERER_SERVER_CONCURRENCY: String(RENDERING_CHECKS + 2) });
  const site = await startFixtureSite(spaRoutes());
  const saved = saveEnv(['RENDERER', 'CHROMIUM_PATH', 'RENDERER_URL', 'RENDERER_TOKEN']);
  const renderFrom = (where: 'in-process' | 'remote') => {
    process.env.RENDERER = 'chromium';
    process.env.CHROMIUM_PATH = settings.mode.executablePath;
    process.env.RENDERER_TOKEN = renderer.token;
    if (where === 'remote') process.env.RENDERER_URL = renderer.url;
    else delete process.env.RENDERER_URL;
  };
  try {
    // (1) One check at a time, the two ways alternately, each warmed first.
    const times = { 'in-process': [] as number[], remote: [] as number[] };
    for (const where of ['in-process', 'remote'] as const) {
      renderFrom(where);
      await checkVisibility('https://site.test/', { hostMap: site.hostMap(['site.test']) });
    }
    for (let run = 0; run < RUNS; run++) {
      for (const where of run % 2 === 0 ? (['in-process', 'remote'] as const) : (['remote', 'in-process'] as const)) {
        renderFrom(where);
        const started = performance.now();
        const { report } = await checkVisibility('https://site.test/', { hostMap: site.hostMap(['site.test']) });
        if (report.page.rendering.state !== 'rendered') throw new Error(`${where}: rendering ${report.page.rendering.state} (${report.page.rendering.reason ?? ''})`);
        times[where].push(performance.now() - started);
      }
    }
    await closeRenderer();
    const ratio = median(times.remote) / median(times['in-process']);
    console.log(`[bench] renderer: a rendered check, median of ${RUNS}: in-process ${median(times['in-process']).toFixed(0)} ms, remote ${median(times.remote).toFixed(0)} ms; remote / in-process ${ratio.toFixed(2)} (target <= 1.15); load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);

    // (2) The API beside 10 rendered checks, its renderer in-process and then remote.
    const p50 = {} as Record<'idle' | 'in-process' | 'remote', number>;
    for (const where of ['in-process', 'remote'] as const) {
      const server = await startServer({
        NODE_OPTIONS: `--import ${PRELOAD}`,
        PAC_FAKE_INTERNET: JSON.stringify({ [HOST]: site.port }),
        RENDERER: 'chromium',
        CHROMIUM_PATH: settings.mode.executablePath,
        RENDER_CONCURRENCY: String(RENDERING_CHECKS),
        CHECKS_PER_SITE_PER_MINUTE: '100000',
        OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '100000',
        OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE: '100000',
        RATE_LIMIT_PER_IP: '100000000',
        RATE_LIMIT_PER_KEY: '100000000',
        LOG_LEVEL: 'silent',
        ...(where === 'remote' ? { RENDERER_URL: renderer.url, RENDERER_TOKEN: renderer.token } : { RENDERER_URL: '' }),
      });
      try {
        const store = openSqliteStore(server.dataDir);
        // A key of 25 calls for each worker: enough for the checks one worker can run in the time measured.
        const keys = await Promise.all(Array.from({ length: RENDERING_CHECKS }, async () => (await createKey(store, TEST_SECRET, 'bundle-25')).key));
        await store.close();
        const unpaid = { url: `${server.url}/api/agent/readiness`, method: 'POST' as const, body: JSON.stringify(validReadinessBody()), headers: { 'content-type': 'application/json' } };
        const rendered = (key = keys[0]!) =>
          fetch(`${server.url}/api/agent/ai-visibility`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ url: `http://${HOST}/` }),
          }).then(async (res) => {
            const body = (await res.json()) as { report?: { page?: { rendering?: { state?: string } } } };
            return `${res.status} ${body.report?.page?.rendering?.state ?? 'no report'}`;
          });
        // The browser (or the connection) and the routes warm; this one must render, or nothing below means anything.
        const first = await rendered();
        if (first !== '200 rendered') throw new Error(`${where}: the first check answered ${first}`);
        await load({ ...unpaid, duration: 2 });
        if (where === 'in-process') p50.idle = (await load({ ...unpaid, duration: 5, connections: 4 })).p50;
        let loading = true;
        // What each check answered: on a busy machine a rendering may run out of its deadline (answered without
        // it, as the service does); the figure is the 402's latency beside that work, so they are counted, not fatal.
        const outcomes = new Map<string, number>();
        const workers = keys.map(async (key) => {
          while (loading) {
            const outcome = await rendered(key);
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          }
        });
        // The rendered checks under way before the measurement starts.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const during = await load({ ...unpaid, duration: 10, connections: 4 });
        loading = false;
        await Promise.all(workers);
        p50[where] = during.p50;
        console.log(`[bench] renderer: unpaid 402 beside ${RENDERING_CHECKS} rendered checks (answered: ${JSON.stringify(Object.fromEntries(outcomes))}), renderer ${where}: p50 ${during.p50} ms, p99 ${during.p99} ms, ${during.rps.toFixed(0)} req/s`);
      } finally {
        await server.stop();
      }
    }
    console.log(`[bench] renderer: unpaid 402 p50: idle ${p50.idle} ms; beside ${RENDERING_CHECKS} rendered checks ${p50['in-process']} ms in-process, ${p50.remote} ms remote (remote / in-process ${(p50.remote / p50['in-process']).toFixed(2)}); load average ${os.loadavg()[0].toFixed(1)}`);
    return { ratio, times, p50 };
  } finally {
    saved.restore();
    await closeRenderer();
    await site.close();
    await renderer.stop();
  }
}
