// Rendering through a renderer server in a process of its own (RENDERER_URL): the page renders as it does
// in-process, and a renderer that is down, refuses the token, is full or dies mid-rendering makes the rendering
// `unavailable` (or `skipped`) with the reason, never a failed check; the next rendering connects again.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as healthGET } from '@/app/api/health/route';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { closeRenderer } from '@/lib/checks/visibility/render';
import { VISIBILITY_LIMITS } from '@/lib/checks/visibility/rubric';
import { chromiumSettings } from '../support/chromium';
import { startRendererServer, type RendererServerProcess } from '../support/renderer-server';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { startFixtureSite, type FixtureRoute, type FixtureSite } from './fixture-site';
import { heldScriptRoutes, spaRoutes } from './render-site';

const settings = chromiumSettings();
const HOSTS = ['site.test'];
const sites: FixtureSite[] = [];
const servers: RendererServerProcess[] = [];
const SAVED = ['RENDERER', 'RENDERER_URL', 'RENDERER_TOKEN', 'CHROMIUM_PATH'].map((k) => [k, process.env[k]] as const);

function renderThrough(url: string, token: string): void {
  process.env.RENDERER = 'chromium';
  process.env.RENDERER_URL = url;
  process.env.RENDERER_TOKEN = token;
}

async function check(routes: Record<string, FixtureRoute>) {
  const site = await startFixtureSite(routes);
  sites.push(site);
  return checkVisibility('https://site.test/', { hostMap: site.hostMap(HOSTS) });
}

/** A loopback port nothing listens on (taken, then released). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const TOKEN = 'x'.repeat(40);

afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});
afterAll(async () => {
  await closeRenderer();
  await Promise.all(servers.map((s) => s.stop()));
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe.skipIf(!settings)('rendering through a renderer server in another process', () => {
  let renderer: RendererServerProcess;
  beforeAll(async () => {
    renderer = await startRendererServer({ CHROMIUM_PATH: settings!.mode.executablePath, RENDERER_SERVER_CONCURRENCY: '1' });
    servers.push(renderer);
  });

  it('renders the single-page app as in-process rendering does, and never writes the token or its path', async () => {
    renderThrough(renderer.url, renderer.token);
    const { report, limits } = await check(spaRoutes());
    expect(report.page.rendering).toMatchObject({ state: 'rendered', title: 'Widgets for everyone', h1Count: 1, wordCount: 153, jsOnlyShare: 1, requests: 1, refused: 0 });
    expect(limits[0]).not.toBe(VISIBILITY_LIMITS[0]);
    expect(renderer.output()).toContain('"renderer.listening"');
    expect(renderer.output()).not.toContain(renderer.token);
    expect(renderer.output()).not.toMatch(/[0-9a-f]{64}/);
  });

  it('a wrong token is refused: rendering unavailable with the reason, the check answered', async () => {
    renderThrough(renderer.url, 'y'.repeat(40));
    const { report, limits } = await check(spaRoutes());
    expect(report.status).toBe(200);
    expect(report.page.wordCount).toBe(1);
    expect(report.page.rendering).toEqual({
      state: 'unavailable',
      reason: 'Rendering is unavailable: the renderer server refused this service’s token.',
      title: null, h1Count: null, wordCount: null, textLength: null, jsOnlyShare: null, requests: 0, refused: 0, durationMs: expect.any(Number),
    });
    expect(limits).toEqual([...VISIBILITY_LIMITS]);
    // A plain request on any other path is refused too.
    expect((await fetch(`${renderer.url.replace('ws', 'http')}/`)).status).toBe(401);
  });

  it('a renderer that is full skips the rendering with the reason', async () => {
    renderThrough(renderer.url, renderer.token);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const routes = spaRoutes();
    routes['/app.js'] = { ...(routes['/app.js'] as object), held };
    const site = await startFixtureSite(routes);
    sites.push(site);
    const first = checkVisibility('https://site.test/', { hostMap: site.hostMap(HOSTS), owner: 'a' } as Parameters<typeof checkVisibility>[1]);
    await new Promise<void>((resolve) => {
      const poll = () => (site.requests.includes('/app.js') ? resolve() : setTimeout(poll, 10));
      poll();
    });
    const second = await check(spaRoutes());
    release();
    expect((await first).report.page.rendering.state).toBe('rendered');
    expect(second.report.page.rendering).toMatchObject({ state: 'skipped', reason: 'Not rendered: the renderer server is rendering as many pages as they may.' });
  });

  it('a renderer that dies mid-rendering: unavailable with the reason, the check answered; a new one renders the next page', async () => {
    const doomed = await startRendererServer({ CHROMIUM_PATH: settings!.mode.executablePath });
    servers.push(doomed);
    renderThrough(doomed.url, doomed.token);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const site = await startFixtureSite(heldScriptRoutes(held));
    sites.push(site);
    const pending = checkVisibility('https://site.test/', { hostMap: site.hostMap(HOSTS) });
    await new Promise<void>((resolve) => {
      const poll = () => (site.requests.includes('/held.js') ? resolve() : setTimeout(poll, 10));
      poll();
    });
    await doomed.kill();
    const { report } = await pending;
    release();
    expect(report.status).toBe(200);
    expect(report.page.rendering).toMatchObject({
      state: 'unavailable',
      reason: 'Rendering is unavailable: the connection to the renderer server closed while the page was rendering.',
      wordCount: null,
    });
    renderThrough(renderer.url, renderer.token);
    expect((await check(spaRoutes())).report.page.rendering.state).toBe('rendered');
  });

  it('a renderer that is down: unavailable with the reason; the next rendering connects once it is back', async () => {
    renderThrough(`ws://127.0.0.1:${await deadPort()}`, TOKEN);
    const down = await check(spaRoutes());
    expect(down.report.status).toBe(200);
    expect(down.report.page.rendering).toMatchObject({ state: 'unavailable', reason: 'Rendering is unavailable: the renderer server could not be reached.' });
    // Two servers, the first down: each rendering that meets it goes on to the second.
    renderThrough(`ws://127.0.0.1:${await deadPort()},${renderer.url}`, renderer.token);
    expect((await check(spaRoutes())).report.page.rendering.state).toBe('rendered');
    expect((await check(spaRoutes())).report.page.rendering.state).toBe('rendered');
  });
});

describe.skipIf(!settings)('GET /api/health?ready=1 with renderer servers', () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it('names each server in order: up with its pages and limit, down with the reason, and stays ready', async () => {
    const renderer = await startRendererServer({ CHROMIUM_PATH: settings!.mode.executablePath, RENDERER_SERVER_CONCURRENCY: '3' });
    servers.push(renderer);
    const dead = `ws://127.0.0.1:${await deadPort()}`;
    renderThrough(`${renderer.url},${dead}`, renderer.token);
    rt = installTestRuntime({});
    const res = await healthGET(new Request('http://localhost:3000/api/health?ready=1'));
    expect(res.status).toBe(200);
    expect((await res.json()).renderer).toEqual({
      servers: [{ up: true, pages: 0, limit: 3 }, { up: false, reason: 'the renderer server could not be reached' }],
    });
    renderThrough(renderer.url, TOKEN);
    const refused = await healthGET(new Request('http://localhost:3000/api/health?ready=1'));
    expect(refused.status).toBe(200);
    expect((await refused.json()).renderer).toEqual({ servers: [{ up: false, reason: 'the renderer server refused this service’s token' }] });
  });
});
