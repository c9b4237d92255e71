// The rendered view on the real service (`next start`, a production build): the server drives its shared
// Chromium, fetches the page's script through its own safeFetch (tests/support/fake-internet.mjs stands in for
// DNS and the network, as production refuses CHECK_HOST_MAP), compares on the compiled analysis thread and
// answers page.rendering and content-needs-javascript, charged once.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { chromiumSettings } from '../support/chromium';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { spaRoutes } from '../visibility/render-site';

const HOST = 'spa.pac-fixture.net';
const PRELOAD = path.resolve(__dirname, '../support/fake-internet.mjs');
const settings = chromiumSettings();

let site: FixtureSite;
let server: RunningServer;

describe.skipIf(!settings)('a single-page app checked by next start with rendering on', () => {
  beforeAll(async () => {
    site = await startFixtureSite(spaRoutes());
    server = await startServer({
      NODE_OPTIONS: `--import ${PRELOAD}`,
      PAC_FAKE_INTERNET: JSON.stringify({ [HOST]: site.port }),
      RENDERER: 'chromium',
      CHROMIUM_PATH: settings!.mode.on ? settings!.mode.executablePath : '',
    });
  }, 600_000);
  afterAll(async () => {
    await server?.stop();
    await site?.close();
  });

  it('answers the rendered view and content-needs-javascript, and charges one call', async () => {
    const store = openSqliteStore(server.dataDir);
    try {
      const { key, keyHash } = await createKey(store, TEST_SECRET, 'bundle-25');
      const res = await fetch(`${server.url}/api/agent/ai-visibility`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://${HOST}/` }),
      });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const { report, limits } = JSON.parse(text) as {
        report: { page: { wordCount: number; rendering: Record<string, unknown> }; findings: Array<{ id: string; severity: string }> };
        limits: string[];
      };
      expect(report.page.wordCount).toBe(1);
      expect(report.page.rendering).toMatchObject({ state: 'rendered', title: 'Widgets for everyone', wordCount: 153, jsOnlyShare: 1, requests: 1, refused: 0 });
      expect(report.findings).toContainEqual(expect.objectContaining({ id: 'content-needs-javascript', severity: 'high' }));
      expect(limits[0]).toMatch(/^The page was also rendered once in headless Chromium/);
      // The script came through the server's own fetcher, never from the browser directly.
      expect(site.log.filter((r) => r.path === '/app.js').map((r) => r.headers['user-agent'])).toEqual([expect.stringMatching(/^PaidAgentChecks\//)]);
      expect((await balance(store, keyHash)).callsLeft).toBe(24);
    } finally {
      await store.close();
    }
  }, 120_000);
});
