// The visibility check on the real service (`next start`, a production build) against a site whose robots.txt,
// sitemap and llms.txt are the worst inputs found (tests/visibility/hostile-site.ts): the analysis runs on the compiled
// worker thread and answers a report, charged once, while the server keeps answering. Production refuses
// CHECK_HOST_MAP, so tests/support/fake-internet.mjs, preloaded into the server, stands in for DNS and the
// network: the site's name resolves to a public address and its sockets reach the local fixture.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { HOSTILE_PAGE_PATH, hostileRoutes } from '../visibility/hostile-site';

const HOST = 'hostile.pac-fixture.net';
const PRELOAD = path.resolve(__dirname, '../support/fake-internet.mjs');

let site: FixtureSite;
let server: RunningServer;

beforeAll(async () => {
  site = await startFixtureSite(hostileRoutes());
  server = await startServer({ NODE_OPTIONS: `--import ${PRELOAD}`, PAC_FAKE_INTERNET: JSON.stringify({ [HOST]: site.port }) });
}, 240_000);
afterAll(async () => {
  await server?.stop();
  await site?.close();
});

describe('a hostile site checked by next start', () => {
  it('answers a report naming each hostile file, charges one call, and keeps serving other requests', async () => {
    const store = openSqliteStore(server.dataDir);
    try {
      const { key, keyHash } = await createKey(store, TEST_SECRET, 'bundle-25');
      const checking = fetch(`${server.url}/api/agent/ai-visibility`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://${HOST}${HOSTILE_PAGE_PATH}` }),
      });
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(200);
      const res = await checking;
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const { report } = JSON.parse(text) as {
        report: { robotsTxt: string; llmsTxt: string; findings: Array<{ id: string }>; site: { sitemapXml: unknown; robotsTxt: unknown } };
      };
      expect(report.robotsTxt).toBe('unreachable');
      expect(report.site.robotsTxt).toMatchObject({ state: 'unreachable', status: 200 });
      expect(report.findings.map((f) => f.id)).toContain('robots-too-complex');
      expect(report.site.sitemapXml).toEqual({ url: `http://${HOST}/sitemap.xml`, status: 200, isSitemap: false });
      expect(report.llmsTxt).toBe('found');
      // Every file really came from the fixture, through the server's own fetches.
      expect(site.requests).toEqual(expect.arrayContaining([HOSTILE_PAGE_PATH, '/robots.txt', '/sitemap.xml', '/llms.txt']));
      expect((await balance(store, keyHash)).callsLeft).toBe(24);
    } finally {
      await store.close();
    }
  });
});
