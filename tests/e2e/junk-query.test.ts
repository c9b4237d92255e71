// Every page (app/**/page.tsx) and every GET route, asked for with malformed query parameters and path ids, on the
// real service (`next start` on the production build the other e2e suites share): a first view, a 4xx, never a 500.
// Also the report pages' per-address limit (proxy.ts): past RATE_LIMIT_REPORTS_PER_IP, a plain 429 page.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { validReadinessBody } from '../support/runtime';

const APP = path.resolve(__dirname, '../../app');
const REPORT_PAGE_LIMIT = 3;

let server: RunningServer;
let cookie: string;
let reportId: string;
let address = 0;
/** A new client address per request (TRUSTED_PROXY=1 believes the entry left of the peer), so the walk meets no limit. */
const freshAddress = () => `100.64.${(++address >> 8) & 255}.${address & 255}`;

/** Files named `name` under app/, as URL paths: route groups dropped, `[id]` kept for the caller to fill. */
function appPaths(name: RegExp, keep: (file: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (name.test(entry.name) && keep(full)) out.push('/' + path.relative(APP, dir).split(path.sep).filter((s) => !/^\(.*\)$/.test(s)).join('/'));
    }
  };
  walk(APP);
  return out.map((p) => (p === '/' ? '/' : p.replace(/\/$/, '')));
}

const PAGES = appPaths(/^page\.tsx$/);
const GET_ROUTES = [
  ...appPaths(/^route\.ts$/, (file) => /export (?:const|async function|function) GET\b/.test(fs.readFileSync(file, 'utf8'))),
  // Metadata routes answer GET too.
  '/robots.txt', '/sitemap.xml', '/opengraph-image',
];

const JUNK_QUERIES = [
  'cursor=zzz', 'limit=-1', 'limit=abc', 'limit=99999', 'limit=1.5', 'id=../../x', 'a=1&a=2', 'cursor=a&cursor=b', 'limit=1&limit=2',
  'session_id=a&session_id=b', 'session_id=cs_%00', 'ready=1&ready=1', 'ready=yes', `cursor=${'z'.repeat(6_000)}`, `q=${'x'.repeat(6_000)}`,
  'cursor=%E0%A4%A', 'q=%zz', '%', 'cursor=%00', 'cursor=%FF%FE', 'cursor[]=1', '=&&=x',
];
const JUNK_IDS = ['..%2F..%2Fx', '%2E%2E', 'rep_' + 'A'.repeat(5_000), '%E0%A4%A', 'rep_%00'];

/** Fills `[id]` with the real report and with junk. */
function concrete(p: string): string[] {
  if (!p.includes('[id]')) return [p];
  return [reportId, ...JUNK_IDS].map((id) => p.replace('[id]', id));
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${url}`, { headers: { 'x-forwarded-for': freshAddress(), ...headers }, redirect: 'manual' });
}

beforeAll(async () => {
  server = await startServer({ TRUSTED_PROXY: '1', RATE_LIMIT_REPORTS_PER_IP: String(REPORT_PAGE_LIMIT) });
  const store = openSqliteStore(server.dataDir);
  let key: string;
  try {
    ({ key } = await createKey(store, TEST_SECRET, 'bundle-25'));
  } finally {
    await store.close();
  }
  const paid = await fetch(`${server.url}/api/agent/readiness`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': freshAddress() }, body: JSON.stringify(validReadinessBody()),
  });
  expect(paid.status).toBe(200);
  reportId = /\/api\/reports\/(rep_[\w-]+)>/.exec(paid.headers.get('link')!)![1];
  const signIn = await fetch(`${server.url}/api/session`, {
    method: 'POST', headers: { origin: server.url, 'content-type': 'application/json', 'x-forwarded-for': freshAddress() }, body: JSON.stringify({ key }),
  });
  expect(signIn.status).toBe(200);
  cookie = signIn.headers.getSetCookie()[0].split(';')[0];
}, 240_000);
afterAll(() => server?.stop());

describe('malformed query parameters and ids on next start', () => {
  it('finds the pages and GET routes under app/', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['/', '/account', '/reports/[id]', '/purchase/success', '/check', '/docs']));
    expect(GET_ROUTES).toEqual(expect.arrayContaining(['/api/reports', '/api/reports/[id]', '/api/billing/session', '/api/health', '/api/agent/credits', '/llms.txt']));
  });

  it('answers every page and GET route with junk parameters, signed in or not, without a 500', async () => {
    const targets = [...PAGES, ...GET_ROUTES].flatMap(concrete);
    const requests = targets.flatMap((target) => ['', ...JUNK_QUERIES].flatMap((q) => [{ url: q ? `${target}?${q}` : target, signedIn: false }, { url: q ? `${target}?${q}` : target, signedIn: true }]));
    const failures: string[] = [];
    // Four at a time: the machine is shared, and the point is the answers, not the load.
    for (let i = 0; i < requests.length; i += 4) {
      await Promise.all(requests.slice(i, i + 4).map(async ({ url, signedIn }) => {
        const res = await get(url, signedIn ? { cookie } : {});
        await res.arrayBuffer();
        if (res.status >= 500) failures.push(`${res.status} ${signedIn ? 'signed in' : 'anonymous'} GET ${url.slice(0, 120)}`);
      }));
    }
    expect(failures).toEqual([]);
    expect(requests.length).toBeGreaterThan(500);
  }, 600_000);

  it('shows the newest reports on /account for a cursor it never gave out', async () => {
    for (const q of ['cursor=zzz', 'cursor=a&cursor=b', 'cursor=%E0%A4%A']) {
      const res = await get(`/account?${q}`, { cookie });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('data-testid="history"');
      expect(html).not.toContain('Newest reports');
    }
  });

  it('answers the report pages with a plain 429 page and Retry-After past RATE_LIMIT_REPORTS_PER_IP per address', async () => {
    const from = { 'x-forwarded-for': '198.51.100.77', cookie };
    const pages = [`/reports/${reportId}`, '/account', `/reports/${reportId}`];
    for (const page of pages) expect((await get(page, from)).status).toBe(200);
    const limited = await get(`/reports/${reportId}`, from);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await limited.text()).toContain('<h1>Too many requests</h1>');
    // A prefetch is counted too, and another address is not.
    expect((await get('/account', { ...from, 'next-router-prefetch': '1' })).status).toBe(429);
    expect((await get(`/reports/${reportId}`, { ...from, 'x-forwarded-for': '198.51.100.78' })).status).toBe(200);
  });
});
