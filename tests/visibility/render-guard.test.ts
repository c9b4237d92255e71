// The renderer's own bounds, each proved on a real Chromium through capturePage: memory, fair turns between
// callers, the request and byte caps, and the interception wall alone (the launch options' wall taken down).
import dgram from 'node:dgram';
import net from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { LAUNCH, leaseBrowser } from '@/lib/checks/visibility/render/browser';
import { closeRenderer } from '@/lib/checks/visibility/render';
import { capturePage, RENDER_MAX_BYTES, RENDER_MAX_REQUESTS, type ServedDocument } from '@/lib/checks/visibility/render/render';
import { descendantsMemory, descendantsOf } from '@/lib/checks/visibility/render/proc-rss';
import { MEMORY_WATCH_STATS } from '@/lib/checks/visibility/render/memory-watch';
import { parseHostMap } from '@/lib/outbound/host-map';
import type { RendererSettings } from '@/lib/checks/visibility/render/settings';
import { startRendererServer, type RunningRendererServer } from '@/lib/checks/visibility/render/server';
import { chromiumSettings } from '../support/chromium';
import { TEST_RENDERER } from '../support/chromium-suite';
import { startFixtureSite, type FixtureRoute, type FixtureSite } from './fixture-site';
import { hostileRoutes } from './render-site';

const chromium = chromiumSettings();
const sites: FixtureSite[] = [];
const MB = 1024 * 1024;

afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

afterAll(async () => {
  LAUNCH.adjust = (o) => o;
  await closeRenderer();
  await server?.close();
});

// With TEST_RENDERER=remote every rendering here goes through a renderer server over a real WebSocket. It runs in
// this process (lib/checks/visibility/render/server.ts, what `npm run renderer` runs): its memory watchdog's
// count, its browser's memory and LAUNCH.adjust (the walls taken down) are then this process's to read and set.
// The rendering suites run a server in a process of its own (tests/support/renderer-server.ts).
let server: RunningRendererServer | null = null;
const TOKEN = 'render-guard-'.padEnd(40, 'x');
beforeEach(async () => {
  if (TEST_RENDERER !== 'remote' || !chromium) return;
  await server?.close();
  server = await startRendererServer({ executablePath: chromium.mode.executablePath, token: TOKEN, host: '127.0.0.1', port: 0, concurrency: 8, memoryMb: 512 });
});

/** The next rendering launches a new browser (with LAUNCH.adjust as it is now), in-process or in the server. */
async function freshBrowser(): Promise<void> {
  await closeRenderer();
  if (!server) return;
  await server.close();
  server = await startRendererServer({ executablePath: chromium!.mode.executablePath, token: TOKEN, host: '127.0.0.1', port: 0, concurrency: 8, memoryMb: 512 });
}

function settings(overrides: Partial<RendererSettings> = {}): RendererSettings {
  const where = TEST_RENDERER === 'remote' ? { mode: { on: true as const, remote: { urls: [server!.url], token: TOKEN } } } : {};
  return { ...chromium!, ...where, ...overrides };
}

const html = (body: string): ServedDocument => ({
  url: 'https://site.test/',
  status: 200,
  headers: [['content-type', 'text/html; charset=utf-8']],
  body: `<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`,
});

async function site(routes: Record<string, FixtureRoute>) {
  const s = await startFixtureSite(routes);
  sites.push(s);
  return { site: s, hostMap: parseHostMap(s.hostMap(['site.test'])) };
}

/** Resolves once `condition` (on what the fixture site logged) holds; the test's timeout bounds the wait. */
function when(_s: FixtureSite, condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (condition() ? resolve() : setTimeout(poll, 10));
    poll();
  });
}

/** A gate a held fixture response waits on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe.skipIf(!chromium)('the renderer under a hostile page (Chromium)', () => {
  it("keeps every feature Playwright disables disabled: Chromium reads only the last --disable-features", async () => {
    const { release } = await leaseBrowser(chromium!.mode.on ? chromium!.mode.executablePath : '', 512);
    try {
      const commandLines = descendantsOf()
        .map((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          } catch {
            return [];
          }
        })
        .filter((args) => args.some((a) => a === '--remote-debugging-pipe') && !args.some((a) => a.startsWith('--type=')));
      // The leased browser, and with TEST_RENDERER=remote the renderer server's too: launched the same way.
      expect(commandLines).toHaveLength(TEST_RENDERER === 'remote' ? 2 : 1);
      const applied = commandLines.map((commandLine) => {
        const lists = commandLine.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
        // Playwright's own switch comes first, ours last; the last one is the one Chromium applies.
        expect(lists).toHaveLength(2);
        const last = new Set(lists[1]);
        return { missing: lists[0].filter((feature) => !last.has(feature)), https: last.has('HttpsUpgrades'), cors: last.has('AvoidCorsURLLoaderRestartOnRedirect') };
      });
      expect(applied).toEqual(commandLines.map(() => ({ missing: [], https: true, cors: true })));
    } finally {
      release();
    }
  });

  it('ends a page allocating 3 GB: failed for memory, the processes grow by less than twice the budget', async () => {
    const { hostMap } = await site({ '/ok.js': { headers: { 'content-type': 'text/javascript' }, body: '1' } });
    const budgetMb = 512;
    // A warm browser first: the baseline includes the idle browser, as a server's would.
    await closeRenderer();
    const warm = await capturePage(html('<p>warm</p>'), { signal: new AbortController().signal, hostMap, settings: settings({ memoryMb: budgetMb }) });
    expect(warm.state).toBe('rendered');
    const baseline = descendantsMemory()!.pss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, descendantsMemory()!.pss)), 20);
    const kills = MEMORY_WATCH_STATS.kills;
    try {
      // ArrayBuffers live outside V8's heap, so the heap limit does not stop them: the watchdog must.
      const hog = html(`<p>hog</p><script>
        const keep = [];
        for (let i = 0; i < 48; i++) { const b = new Uint8Array(64 * 1024 * 1024); b.fill(1); keep.push(b); }
        document.title = 'allocated ' + keep.length * 64 + ' MB';
      </script>`);
      const capture = await capturePage(hog, { signal: new AbortController().signal, hostMap, settings: settings({ memoryMb: budgetMb }) });
      const reason = TEST_RENDERER === 'remote' ? 'The page crashed the browser tab (the renderer server ends a page past 512 MB of memory).' : 'The page used more than 512 MB of memory; the browser ended it.';
      expect({ state: capture.state, reason: capture.reason }).toEqual({ state: 'failed', reason });
    } finally {
      clearInterval(sampler);
    }
    expect(MEMORY_WATCH_STATS.kills).toBeGreaterThan(kills);
    expect(peak - baseline).toBeLessThan(2 * budgetMb * MB);
    // The browser renders the next page.
    const next = await capturePage(html('<p>next</p>'), { signal: new AbortController().signal, hostMap, settings: settings({ memoryMb: budgetMb }) });
    expect(next.state).toBe('rendered');
  }, 90_000);

  it("gives owner B a slot before owner A's second page, however many A queued, and renders it", async () => {
    const gates = new Map<string, ReturnType<typeof gate>>();
    const routes: Record<string, FixtureRoute> = {};
    for (const name of ['a1', 'a2', 'a3', 'a4', 'b1']) {
      const g = gate();
      gates.set(name, g);
      routes[`/hold-${name}.js`] = { headers: { 'content-type': 'text/javascript' }, body: `document.title = '${name}';`, held: g.opened };
    }
    const { site: s, hostMap } = await site(routes);
    const started = () => s.requests.filter((p) => p.startsWith('/hold-'));
    const page = (name: string) => html(`<p>${name}</p><script src="/hold-${name}.js"></script>`);
    const run = (name: string, owner: string) => capturePage(page(name), { signal: new AbortController().signal, hostMap, owner, settings: settings({ concurrency: 2, queue: 8 }) });
    const a = ['a1', 'a2', 'a3', 'a4'].map((name) => run(name, 'key:A'));
    await when(s, () => started().length >= 1);
    const b = run('b1', 'key:B');
    await when(s, () => started().length >= 2);
    expect(started()).toEqual(['/hold-a1.js', '/hold-b1.js']);
    gates.get('b1')!.open();
    expect(await b).toMatchObject({ state: 'rendered', requests: 1, refused: 0 });
    // A's pages follow one at a time.
    gates.get('a1')!.open();
    await when(s, () => started().length >= 3);
    expect(started()).toEqual(['/hold-a1.js', '/hold-b1.js', '/hold-a2.js']);
    for (const g of gates.values()) g.open();
    expect((await Promise.all(a)).map((c) => c.state)).toEqual(['rendered', 'rendered', 'rendered', 'rendered']);
  }, 90_000);

  it(`fetches exactly ${RENDER_MAX_REQUESTS} of 60 scripts and counts the other 10 refused`, async () => {
    const routes: Record<string, FixtureRoute> = {};
    for (let i = 0; i < 60; i++) routes[`/s${i}.js`] = { headers: { 'content-type': 'text/javascript' }, body: `window.n = (window.n || 0) + 1;` };
    const { site: s, hostMap } = await site(routes);
    const scripts = Array.from({ length: 60 }, (_, i) => `<script src="/s${i}.js"></script>`).join('');
    const capture = await capturePage(html(`${scripts}<script>document.body.dataset.ran = String(window.n);</script>`), {
      signal: new AbortController().signal,
      hostMap,
      settings: settings(),
    });
    expect({ state: capture.state, requests: capture.requests, refused: capture.refused }).toEqual({ state: 'rendered', requests: 50, refused: 10 });
    expect(s.requests.filter((p) => /^\/s\d+\.js$/.test(p)).length).toBe(50);
    expect(capture.html).toContain('data-ran="50"');
  }, 60_000);

  it('hands the page at most 5 MB: eight 1,000,000-byte scripts, five delivered, three counted refused', async () => {
    const routes: Record<string, FixtureRoute> = {};
    // Each script is a comment padding it to 1,000,000 bytes, then the line that counts it.
    const tail = `\nwindow.n = (window.n || 0) + 1;`;
    const body = `//${'x'.repeat(1_000_000 - 2 - tail.length)}${tail}`;
    for (let i = 0; i < 8; i++) routes[`/big${i}.js`] = { headers: { 'content-type': 'text/javascript' }, body };
    const { hostMap } = await site(routes);
    expect(5 * 1_000_000).toBeLessThanOrEqual(RENDER_MAX_BYTES);
    expect(6 * 1_000_000).toBeGreaterThan(RENDER_MAX_BYTES);
    const scripts = Array.from({ length: 8 }, (_, i) => `<script src="/big${i}.js"></script>`).join('');
    const capture = await capturePage(html(`${scripts}<script>document.body.dataset.ran = String(window.n);</script>`), {
      signal: new AbortController().signal,
      hostMap,
      settings: settings(),
    });
    expect({ state: capture.state, requests: capture.requests, refused: capture.refused }).toEqual({ state: 'rendered', requests: 8, refused: 3 });
    expect(capture.html).toContain('data-ran="5"');
  }, 60_000);
});

/** A listener on 127.0.0.1 that counts TCP connections and UDP datagrams, and tells when a sentinel arrives. */
async function privateListener() {
  const seen = { connections: 0, datagrams: 0 };
  let sentinel: (() => void) | null = null;
  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    // Counted as soon as it is made: a browser's connection may send nothing (preconnect).
    seen.connections++;
    socket.once('data', (d) => {
      if (d.toString() === 'sentinel') sentinel?.();
      socket.destroy();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const port = (tcp.address() as net.AddressInfo).port;
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => seen.datagrams++);
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
  return {
    port,
    /** Sends one connection of our own and resolves once the listener has accepted it: everything sent before it has arrived. */
    async drained(): Promise<{ connections: number; datagrams: number }> {
      const arrived = new Promise<void>((resolve) => (sentinel = resolve));
      const socket = net.connect(port, '127.0.0.1', () => socket.end('sentinel'));
      await arrived;
      // The sentinel's own connection was counted as it was accepted.
      return { connections: seen.connections - 1, datagrams: seen.datagrams };
    },
    close: async () => {
      udp.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

describe.skipIf(!chromium)('the first wall alone: interception, with the launch options’ proxy and resolver rules removed (Chromium)', () => {
  afterAll(async () => {
    LAUNCH.adjust = (o) => o;
    await closeRenderer();
  });

  it('has no SharedWorker, and a dedicated worker’s WebSocket connects nowhere', async () => {
    LAUNCH.adjust = withoutNetworkWalls;
    await freshBrowser();
    const target = await privateListener();
    try {
      const { hostMap } = await site({});
      const ws = `try { const w = new WebSocket('ws://127.0.0.1:${target.port}/w'); w.onopen = () => postMessage('open'); w.onerror = () => postMessage('error'); } catch (e) { postMessage('threw'); }`;
      const page = html(`<p id="out">waiting</p><script>
        const out = { shared: typeof SharedWorker };
        const w = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(ws)}], { type: 'text/javascript' })));
        w.onmessage = (e) => { out.worker = e.data; document.getElementById('out').textContent = JSON.stringify(out); };
      </script>`);
      const capture = await capturePage(page, { signal: new AbortController().signal, hostMap, settings: settings() });
      expect(capture.state).toBe('rendered');
      expect(capture.html).toContain('<p id="out">{"shared":"undefined","worker":"error"}</p>');
      expect(await target.drained()).toEqual({ connections: 0, datagrams: 0 });
    } finally {
      await target.close();
    }
  }, 60_000);

  it('lets the hostile page reach nothing on 127.0.0.1 by any route: 0 connections, 0 datagrams, 25 refused', async () => {
    LAUNCH.adjust = withoutNetworkWalls;
    await freshBrowser();
    const target = await privateListener();
    try {
      const routes = hostileRoutes(target.port);
      const { site: s, hostMap } = await site(routes);
      const served: ServedDocument = { url: 'https://site.test/', status: 200, headers: [['content-type', 'text/html; charset=utf-8']], body: String((routes['/'] as { body: string }).body) };
      // Every name resolves to 127.0.0.1 for safeFetch (the site itself is reached through the host map).
      const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
      const capture = await capturePage(served, { signal: new AbortController().signal, hostMap, lookup, settings: settings() });
      // The page's attempts (render-site.ts), each refused once: the iframes to 127.0.0.1 and localhost, object,
      // embed, the popup and the form post (6 navigations); fetch to 127.0.0.1 and localhost, the worker's fetch,
      // XHR, sendBeacon and EventSource (6); the image, the video, the stylesheet's background (3); the prefetch,
      // the preload, the script from localhost, the stylesheet from 127.0.0.1 and the one it @imports (5); the two
      // WebSockets (2); the site's own /redirect.js and /bounce, fetched and refused at their redirects (2); its
      // /style.css is the one request handed over. The plain-http name's fetch and script are mixed content:
      // Chromium never asks for them.
      expect({ state: capture.state, requests: capture.requests, refused: capture.refused }).toEqual({ state: 'rendered', requests: 1, refused: 25 });
      // The context is closed; a connection of our own, once accepted, marks that anything sent before it has arrived.
      expect(await target.drained()).toEqual({ connections: 0, datagrams: 0 });
      expect([...s.requests].sort()).toEqual(['/bounce', '/redirect.js', '/style.css']);
    } finally {
      await target.close();
    }
  }, 60_000);
});

function withoutNetworkWalls(options: Parameters<typeof LAUNCH.adjust>[0]) {
  const { proxy: _proxy, ...rest } = options;
  return { ...rest, args: rest.args!.filter((a) => !a.startsWith('--host-resolver-rules=')) };
}
