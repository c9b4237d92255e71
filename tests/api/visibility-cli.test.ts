import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { pageUrlsOfList, sitemapPageUrls } from '@/scripts/check/pages';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { setRuntimeForTests } from '@/lib/runtime';
import { agentCheckRoute } from '../support/check-routes';
import { serveWebHandler, type WebServer } from '../support/web-server';

// `npm run check -- … --api <base>` as a CI job runs it: the real CLI as a child process, paying with a prepaid
// key minted in the ledger, against the service's paid route served over HTTP from this process (so the child's
// calls land in this process's store), which checks a fixture site mapped through CHECK_HOST_MAP.

const ROOT = path.resolve(__dirname, '../..');
const PAGE = (title: string) => `<!doctype html><html lang="en"><head><title>${title}</title>
<meta name="description" content="Everything about widgets."><link rel="canonical" href="https://site.test/"></head>
<body><h1>${title}</h1><p>${'word '.repeat(400)}</p></body></html>`;
const html = (title: string) => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE(title) });
const urlset = (paths: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>https://site.test${p}</loc></url>`).join('')}</urlset>`;

let rt: TestRuntime;
let site: FixtureSite;
let service: WebServer;
let key: string;
let keyHash: string;
let tmp: string;
const { POST } = agentCheckRoute('ai-visibility');
const callsLeft = async () => (await balance(rt.store, keyHash)).callsLeft;

beforeAll(async () => {
  site = await startFixtureSite({
    '/': html('Widgets'),
    '/a': html('Widgets A'),
    '/b': html('Widgets B'),
    '/c': html('Widgets C'),
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n' },
    '/sitemap.xml': { headers: { 'content-type': 'application/xml' }, body: urlset(['/a', '/b', '/c']) },
    '/index.xml': { headers: { 'content-type': 'application/xml' }, body: '<sitemapindex><sitemap><loc>https://site.test/sitemap.xml</loc></sitemap></sitemapindex>' },
    '/moved.xml': { redirect: '/sitemap.xml', status: 301 },
    // Far over the CLI's cap: the pages before the cut are still read, and no more than the cap is.
    '/huge.xml': { headers: { 'content-type': 'application/xml' }, stream: { bytes: 64 * 1024 * 1024, chunk: '<url><loc>https://site.test/a</loc></url>' } },
  });
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  rt = installTestRuntime();
  service = await serveWebHandler((request) =>
    new URL(request.url).pathname === '/api/agent/ai-visibility' ? POST(request) : new Response('not here', { status: 404 }),
  );
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-cli-'));
});
afterAll(async () => {
  delete process.env.CHECK_HOST_MAP;
  await service?.close();
  await rt?.dispose();
  await site?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function mintKey(): Promise<void> {
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
}

/** Runs the CLI without blocking this process (which serves the calls it makes) and gives its exit code and output. */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // The child reaches the site only through the service: it gets no host map of its own.
    const { CHECK_HOST_MAP: _map, PAC_KEY: _key, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/check.ts', ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('one page through the service: the CI gate', () => {
  it('prints the summary with the report and credits, exits 0 at a threshold at or below the score and 1 above it', async () => {
    await mintKey();
    const first = await cli(['https://site.test/', '--api', service.url, '--key', key]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^AI Visibility Check of https:\/\/site\.test\/$/m);
    const score = Number(/^Score: (\d+)\/100 \(rubric /m.exec(first.stdout)?.[1]);
    // GPTBot is refused by robots.txt: the page cannot score full marks, so one point more is a threshold it fails.
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(100);
    // The page its owner opens once signed in with the key, and the JSON beside it: one report, two addresses.
    const page = new RegExp(`^Report: ${service.url.replace(/\./g, '\\.')}/reports/(rep_[\\w-]+)$`, 'm').exec(first.stdout);
    expect(page).not.toBeNull();
    expect(first.stdout).toMatch(new RegExp(`^JSON: ${service.url.replace(/\./g, '\\.')}/api/reports/${page![1]}$`, 'm'));
    expect(first.stdout).toMatch(/^Credits remaining: 24$/m);
    expect(first.stdout).not.toContain(key);

    const at = await cli(['https://site.test/', '--api', service.url, '--key', key, '--fail-under', String(score)]);
    expect(at.code).toBe(0);
    expect(at.stderr).toBe('');

    // The key from the environment, as the documented GitHub Actions step passes its secret.
    const above = await cli(['https://site.test/', '--api', service.url, '--fail-under', String(score + 1)], { PAC_KEY: key });
    expect(above.code).toBe(1);
    expect(above.stderr).toBe(`Score ${score} is under --fail-under ${score + 1}.\n`);
    expect(above.stdout).toMatch(/^Credits remaining: 22$/m);
    expect(await callsLeft()).toBe(22);
  }, 180_000);

  it('a bad key gets the service\'s 401 in words, exit 2, and nothing is charged', async () => {
    await mintKey();
    const res = await cli(['https://site.test/', '--api', service.url, '--key', 'pac_live_not-a-real-key', '--fail-under', '0']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe('401 The credits key is not valid: The credits key is not valid. Check it, or buy a plan at /pricing.\n');
    expect(await callsLeft()).toBe(25);
  }, 60_000);

  it('a page the service refuses is said with its status and fields, exit 2, not charged', async () => {
    await mintKey();
    const res = await cli(['http://127.0.0.1/', '--api', service.url, '--key', key]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^400 [^\n]+\n {2}\$\.url: [^\n]+\n$/);
    expect(await callsLeft()).toBe(25);
  }, 60_000);
});

describe('several pages through the service', () => {
  it('--urls with 3 URLs prints 3 rows and spends exactly 3 credits; any page under --fail-under exits 1', async () => {
    await mintKey();
    const list = path.join(tmp, 'urls.txt');
    fs.writeFileSync(list, '# the pages we ship\nhttps://site.test/a\n\nhttps://site.test/b   # pricing\n  https://site.test/c\n');
    const res = await cli(['--urls', list, '--api', service.url, '--key', key, '--fail-under', '100']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(1);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^url +score +verdict +top finding +report$/);
    const rows = lines.slice(1, 4);
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(['https://site.test/a', 'https://site.test/b', 'https://site.test/c']);
    for (const row of rows) expect(row).toMatch(/^https:\/\/site\.test\/[abc] +\d{1,2} < 100 +\S.* http:\/\/127\.0\.0\.1:\d+\/reports\/rep_[\w-]+$/);
    expect(new Set(rows.map((r) => r.split(/\s+/).at(-1))).size).toBe(3);
    expect(lines[4]).toBe('3 pages: 3 checked, 0 refused (not charged), 3 under 100; credits remaining: 22');
    expect(await callsLeft()).toBe(22);
  }, 180_000);

  it('--sitemap with --limit 2 fetches the sitemap once itself and checks its first 2 pages', async () => {
    await mintKey();
    const before = site.log.length;
    const res = await cli(['--sitemap', site.url('/sitemap.xml'), '--limit', '2', '--api', service.url, '--key', key]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.slice(1, -1).map((r) => r.split(/\s+/)[0])).toEqual(['https://site.test/a', 'https://site.test/b']);
    expect(lines.at(-1)).toBe('2 pages: 2 checked, 0 refused (not charged); credits remaining: 23');
    expect(await callsLeft()).toBe(23);
    const fromCli = site.log.slice(before).filter((r) => r.headers['user-agent'] === 'paid-agent-checks-cli');
    expect(fromCli.map((r) => r.path)).toEqual(['/sitemap.xml']);
  }, 180_000);

  it('a URL list that names nothing, and bad options, are refused before any call: exit 2', async () => {
    await mintKey();
    const empty = path.join(tmp, 'empty.txt');
    fs.writeFileSync(empty, '# nothing yet\n\n');
    const none = await cli(['--urls', empty, '--api', service.url, '--key', key]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`The URL list ${empty} names no URL (one per line; # starts a comment)\n`);
    const local = await cli(['--urls', empty]);
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/^--urls and --sitemap check pages through a service: add --api <base>\.\n/);
    const noKey = await cli(['https://site.test/', '--api', service.url]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^--api needs a prepaid credits key/);
    expect(await callsLeft()).toBe(25);
  }, 120_000);
});

describe('a site\'s checks per minute, spent by the batch itself', () => {
  let mainRuntime: TestRuntime;
  beforeAll(() => {
    mainRuntime = rt;
    // One check of a site per minute: the batch's second page is refused 429 (nothing charged) until the next minute.
    rt = installTestRuntime({ CHECKS_PER_SITE_PER_MINUTE: '1' });
  });
  afterAll(async () => {
    await rt.dispose();
    rt = mainRuntime;
    setRuntimeForTests(rt);
  });

  it('waits out the 429 with its Retry-After, says so, and then checks the page: both pages checked, 2 credits', async () => {
    await mintKey();
    const list = path.join(tmp, 'two.txt');
    fs.writeFileSync(list, 'https://site.test/a\nhttps://site.test/b\n');
    const res = await cli(['--urls', list, '--api', service.url, '--key', key]);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/^429 [^\n]+ Nothing was charged\.\n {2}waiting \d+ s, then asking again\n$/);
    expect(res.stdout.trimEnd().split('\n').at(-1)).toBe('2 pages: 2 checked, 0 refused (not charged); credits remaining: 23');
    expect(await callsLeft()).toBe(23);
  }, 180_000);
});

describe('the page list and the sitemap, read by the CLI', () => {
  it('a --urls file: one URL a line, comments and blank lines skipped, a fragment kept', () => {
    expect(pageUrlsOfList('# a comment\r\nhttps://s.test/a\n\n  https://s.test/b#top  # note\n#https://s.test/c\n')).toEqual(['https://s.test/a', 'https://s.test/b#top']);
  });

  it('takes the first pages in order, refuses an index or a redirect with the address to use, and reads a huge sitemap only to its cap', async () => {
    expect(await sitemapPageUrls(site.url('/sitemap.xml'), 2)).toEqual(['https://site.test/a', 'https://site.test/b']);
    await expect(sitemapPageUrls(site.url('/index.xml'), 2)).rejects.toThrow(`${site.url('/index.xml')} is a sitemap index (first child https://site.test/sitemap.xml): pass one of its sitemaps as --sitemap`);
    await expect(sitemapPageUrls(site.url('/moved.xml'), 2)).rejects.toThrow(`redirects to ${site.url('/sitemap.xml')}: pass the final address as --sitemap`);
    await expect(sitemapPageUrls(site.url('/missing.xml'), 2)).rejects.toThrow(`The sitemap ${site.url('/missing.xml')} answered HTTP 404`);
    expect(await sitemapPageUrls(site.url('/huge.xml'), 3)).toEqual(['https://site.test/a', 'https://site.test/a', 'https://site.test/a']);
    const huge = site.log.filter((r) => r.path === '/huge.xml');
    expect(huge).toHaveLength(1);
    // The CLI hung up once it had its cap: the server sees the socket close (this waits for it) with most of the file unsent.
    while (!huge[0].closedEarly) await new Promise((r) => setTimeout(r, 20));
    expect(huge[0].bytesWritten).toBeLessThan(16 * 1024 * 1024);
  });
});
