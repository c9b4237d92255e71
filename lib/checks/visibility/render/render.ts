// Renders one page in the shared Chromium, in a fresh context, with every byte the browser fetches passing
// through safeFetch, the same SSRF guard as the check's own fetches. The first wall is interception: every
// request of the context that Playwright sees (frames, popups, dedicated workers' fetches and scripts) is
// answered by us, fulfilled from safeFetch or aborted, and every WebSocket a page opens is closed before it
// connects. What interception cannot see is shut off: preloading is off in the browser's profile (Chromium
// would open a socket to each navigation's address before its request exists), SharedWorker is disabled at
// launch, and every response handed to the browser carries a policy refusing WebSocket connections
// (`connect-src` without ws:/wss:), which Chromium applies to the workers those documents start too. The second wall is in the launch options
// (browser.ts): a dead proxy and a resolver that knows no names, for anything that slips past.
import { raceSignal } from '@/lib/abort';
import type { BrowserContext, Page, Route } from 'playwright-core';
import type { HostMap } from '@/lib/outbound/host-map';
import type { OutboundGate } from '@/lib/outbound/outbound';
import { FetchRefusedError, safeFetch, type LookupFn } from '@/lib/outbound/safe-fetch';
import { createLimiter, leaseBrowser, type BrowserLease, type Limiter } from './browser';
import { RENDER_MILESTONES, type RenderCapture, type RenderMilestone } from './compare';
import { watchRendererMemory, type MemoryWatch } from './memory-watch';
import { connectRenderer, RendererUnavailable } from './remote';
import { resolveRendererSettings, type RemoteRenderers, type RendererSettings } from './settings';
import { asWebMcpCapture, READ_EXPRESSION, RECORDER_SCRIPT } from './webmcp-recorder';

/** The caps of one rendering: requests fetched for the page, bytes of those. */
export const RENDER_MAX_REQUESTS = 50;
export const RENDER_MAX_BYTES = 5 * 1024 * 1024;
/** Redirects one subrequest of the browser may follow (each hop is a request, counted in the check's bound). */
export const RENDER_MAX_REDIRECTS = 2;
/**
 * The time of one rendering once it has a slot. What guards against a hostile page is `cpuMs`, the processor time
 * the page's renderer process used (its scripts, parsing, layout, its workers), read from Chromium itself: a page
 * whose scripts never yield spends it at the pace of the core it gets, while an honest page on a machine busy with
 * other work uses little of it however long it waits for a core. The wall-clock limits are generous backstops:
 * `loadMs` for the page to reach its load event and the network to settle, `readMs` more to read it back.
 * Tests shorten them, as with RECYCLE.
 */
export const RENDER_LIMITS = { cpuMs: 8_000, loadMs: 12_000, readMs: 3_000 };
/** The longest a check waits for a rendering slot before its rendering is skipped. */
const RENDER_QUEUE_WAIT_MS = 10_000;
/** The rendered DOM read back, at most (characters of outerHTML). */
const RENDER_MAX_DOM_CHARS = 2 * 1024 * 1024;
// How long a rendering that went wrong waits to learn whether its renderer server's connection closed.
const DISCONNECT_GRACE_MS = 1_000;
// How often the page's processor time is read: a page spends at most a few cores' worth between two reads.
const CPU_POLL_MS = 200;
// The network counts as settled once nothing was in flight for this long.
const QUIET_MS = 500;

/** Never needed for text, and the heaviest things a page loads. */
const SKIPPED_TYPES: ReadonlySet<string> = new Set(['image', 'media', 'font']);
// Dropped from what we pass on: the body is already decoded, its length is Playwright's to set, and a rendering
// keeps no cookies (each context is thrown away anyway).
const DROPPED_HEADERS: ReadonlySet<string> = new Set([
  'content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'set-cookie', 'set-cookie2',
]);
// Added to every response the browser is handed (beside the site's own policies, which still apply): no
// WebSocket from the page, its frames or any worker they start, including those interception does not see.
const NO_WEBSOCKETS_POLICY = "connect-src http: https: blob: data:";
const NO_WEBRTC_SCRIPT = `for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceTransport', 'RTCRtpSender', 'RTCRtpReceiver']) { try { delete globalThis[name]; } catch {} }`;

/** The page as the check fetched it: the browser is handed these bytes rather than fetching the page again. */
export interface ServedDocument {
  url: string;
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

export interface CaptureOptions {
  /** The check's signal: aborting it ends the rendering wherever it is. */
  signal: AbortSignal;
  hostMap: HostMap;
  lookup?: LookupFn;
  /** The check's outbound gate: each subrequest hop asks it first, and a refusal counts as refused. */
  outbound?: OutboundGate;
  /** Replaces the settings read from the environment (tests). */
  settings?: RendererSettings;
  /**
   * Who pays for the check (a credits key's hash, or the verified payer): each owner renders one page at a
   * time and owners take turns. Without it the rendering is its own owner.
   */
  owner?: string;
}

let limiter: { key: string; limiter: Limiter } | null = null;

function limiterFor(settings: RendererSettings): Limiter {
  const key = `${settings.concurrency}/${settings.queue}`;
  if (limiter?.key !== key) limiter = { key, limiter: createLimiter(settings.concurrency, settings.queue) };
  return limiter.limiter;
}

const since = (start: number) => Math.round(performance.now() - start);

function isHtml(headers: Array<[string, string]>): boolean {
  const type = headers.find(([n]) => n === 'content-type')?.[1] ?? '';
  return type === '' || /^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(type);
}

/**
 * Renders `served` (already fetched by the check) and reads back its DOM. Never throws: a rendering that
 * cannot run is `unavailable`, `skipped` or `failed`, with the reason.
 * @example const capture = await capturePage(served, { signal, hostMap }); capture.state // 'rendered'
 */
export async function capturePage(served: ServedDocument, options: CaptureOptions): Promise<RenderCapture> {
  const started = performance.now();
  const settings = options.settings ?? resolveRendererSettings();
  const none = { html: null, webMcp: null, requests: 0, refused: 0 };
  if (!settings.mode.on) return { state: 'unavailable', reason: settings.mode.reason, ...none, durationMs: 0 };
  if (served.status < 200 || served.status > 299) {
    return { state: 'skipped', reason: `The page answered ${served.status}; only pages that answer 2xx are rendered.`, ...none, durationMs: 0 };
  }
  if (!isHtml(served.headers)) return { state: 'skipped', reason: 'The page is not HTML.', ...none, durationMs: 0 };

  const slots = limiterFor(settings);
  const owner = options.owner ?? `anonymous:${crypto.randomUUID()}`;
  let slot;
  try {
    slot = await slots.acquire(owner, AbortSignal.any([options.signal, AbortSignal.timeout(RENDER_QUEUE_WAIT_MS)]));
  } catch {
    const reason = options.signal.aborted
      ? 'The check ended before a rendering slot was free.'
      : slots.holds(owner)
        ? `Not rendered: another of this caller's pages held its one rendering slot for ${RENDER_QUEUE_WAIT_MS / 1000} s (each caller renders one page at a time).`
        : `Not rendered: no rendering slot was free within ${RENDER_QUEUE_WAIT_MS / 1000} s.`;
    return { state: 'skipped', reason, ...none, durationMs: since(started) };
  }
  if (typeof slot !== 'function') {
    const reason =
      slot === 'displaced'
        ? "Not rendered: this caller already had more pages waiting for the renderer than others, and gave this page's place to another caller."
        : `Not rendered: the renderer is busy (${settings.concurrency} pages rendering, ${settings.queue} waiting).`;
    return { state: 'skipped', reason, ...none, durationMs: since(started) };
  }
  try {
    return { ...(await renderInBrowser(served, options, settings.mode, settings)), durationMs: since(started) };
  } finally {
    slot();
  }
}

interface Meter {
  attempts: number;
  requests: number;
  refused: number;
  bytes: number;
  inFlight: number;
  lastActivity: number;
}

type RenderingMode = { executablePath: string } | { remote: RemoteRenderers };

/** The browser one rendering runs in: this process's shared one, or a connection of its own to a renderer server. */
async function browserFor(mode: RenderingMode, memoryMb: number): Promise<BrowserLease> {
  if ('executablePath' in mode) return leaseBrowser(mode.executablePath, memoryMb);
  const browser = await connectRenderer(mode.remote);
  return { browser, release: () => void browser.close().catch(() => {}) };
}

// A renderer server watches its own processes' memory; there is nothing of the page's in this process to watch.
const NO_MEMORY_WATCH: MemoryWatch = { tripped: () => false, stop: () => {} };

async function renderInBrowser(served: ServedDocument, options: CaptureOptions, mode: RenderingMode, settings: RendererSettings): Promise<Omit<RenderCapture, 'durationMs'>> {
  const meter: Meter = { attempts: 0, requests: 0, refused: 0, bytes: 0, inFlight: 0, lastActivity: performance.now() };
  const failed = (reason: string) => ({ state: 'failed' as const, reason, html: null, webMcp: null, requests: meter.requests, refused: meter.refused });
  const counts = () => ({ html: null, webMcp: null, requests: meter.requests, refused: meter.refused });

  let lease: BrowserLease;
  try {
    lease = await browserFor(mode, settings.memoryMb);
  } catch (error) {
    if (error instanceof RendererUnavailable) return { state: error.busy ? 'skipped' : 'unavailable', reason: error.message, ...counts() };
    return failed('Chromium could not be started.');
  }
  const remote = 'remote' in mode;
  // A renderer server that went away mid-rendering is the renderer's outage, not the page's doing. Playwright
  // fails the page's calls the moment the socket closes, and says the browser is disconnected a few milliseconds
  // later: a rendering that went wrong waits up to DISCONNECT_GRACE_MS to tell the two apart.
  const disconnected = remote ? new Promise<true>((resolve) => lease.browser.once('disconnected', () => resolve(true))) : null;
  const dropped = async () => {
    if (!disconnected) return null;
    const gone = lease.browser.isConnected() ? await Promise.race([disconnected, new Promise<false>((resolve) => setTimeout(() => resolve(false), DISCONNECT_GRACE_MS))]) : true;
    return gone ? { state: 'unavailable' as const, reason: 'Rendering is unavailable: the connection to the renderer server closed while the page was rendering.', ...counts() } : null;
  };
  const limits = { ...RENDER_LIMITS };
  const budget = settings.memoryMb * 1024 * 1024;
  const memory = remote ? NO_MEMORY_WATCH : watchRendererMemory(budget, budget * settings.concurrency);
  const overBudget = () => failed(`The page used more than ${settings.memoryMb} MB of memory; the browser ended it.`);
  const busy = () => failed(`The page's scripts kept the browser busy for more than ${limits.cpuMs / 1000} s of processor time.`);
  const checkEnded = () => failed('The check ended while the page was rendering.');
  const cpuSpent = new AbortController();
  const deadline = AbortSignal.any([options.signal, AbortSignal.timeout(limits.loadMs + limits.readMs), cpuSpent.signal]);
  const startedAt = performance.now();
  let context: BrowserContext | null = null;
  let cpu: { stop(): void } | null = null;
  try {
    context = await lease.browser.newContext({
      serviceWorkers: 'block',
      acceptDownloads: false,
      permissions: [],
      javaScriptEnabled: true,
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
    });
    await guardContext(context, served, options, meter, deadline, limits.loadMs + limits.readMs);
    const page = await context.newPage();
    // Popups would be more pages to run; their requests are guarded like any, but they are not waited for.
    context.on('page', (other) => {
      if (other !== page) void other.close().catch(() => {});
    });
    let crashed = false;
    page.on('crash', () => (crashed = true));
    const reached = new Set<RenderMilestone>();
    page.once('domcontentloaded', () => reached.add('domcontentloaded'));
    page.once('load', () => reached.add('load'));
    cpu = await watchPageCpu(context, page, limits.cpuMs, () => cpuSpent.abort());

    const remaining = () => Math.max(0, limits.loadMs - (performance.now() - startedAt));
    // The outcome is read from the events above: goto fails the same way for a slow page and a stuck one.
    await withDeadline(page.goto(served.url, { waitUntil: 'load', timeout: Math.max(1, remaining()) }).catch(() => {}), deadline);
    if (reached.has('load')) await settled(meter, remaining, deadline, () => crashed || !lease.browser.isConnected());
    if (options.signal.aborted) return checkEnded();
    if (!reached.has('load') || crashed) {
      const lost = await dropped();
      if (lost) return lost;
    }
    if (cpuSpent.signal.aborted) return busy();
    if (crashed) {
      if (remote) return failed(`The page crashed the browser tab (the renderer server ends a page past ${settings.memoryMb} MB of memory).`);
      return memory.tripped() ? overBudget() : failed('The page crashed the browser tab.');
    }
    if (!reached.has('load')) {
      // Whatever DOM exists now is a page cut off mid-load (a news page read this way had no title and no
      // words): it is reported as such, and nothing in the report is drawn from it.
      const missing = RENDER_MILESTONES.filter((m) => !reached.has(m));
      const named = missing.map((m) => (m === 'load' ? 'no load event' : 'no DOMContentLoaded')).join(', ');
      return {
        state: 'partial',
        reason: `The page had not loaded after ${limits.loadMs / 1000} s (${named}): what the browser had is not compared with the HTML as served.`,
        missing,
        html: null,
        webMcp: null,
        requests: meter.requests,
        refused: meter.refused,
      };
    }

    // The WebMCP records before the DOM: both are read once the page settled, and a page that fails the read
    // (a script that broke what the read needs) still has its DOM read; its tools then read as not observed.
    const webMcp = asWebMcpCapture(await withDeadline(page.evaluate(READ_EXPRESSION), deadline).catch(() => null));
    const html = await withDeadline(
      page.evaluate((max) => {
        const root = document.documentElement;
        const html = root ? root.outerHTML : '';
        return html.length > max ? html.slice(0, max) : html;
      }, RENDER_MAX_DOM_CHARS),
      deadline,
    );
    if (crashed && memory.tripped()) return overBudget();
    if (html === null) {
      const lost = await dropped();
      if (lost) return lost;
      if (options.signal.aborted) return checkEnded();
      if (cpuSpent.signal.aborted) return busy();
      return failed(`The browser did not hand the rendered page back within ${(limits.loadMs + limits.readMs) / 1000} s.`);
    }
    return { state: 'rendered', html, webMcp, requests: meter.requests, refused: meter.refused };
  } catch {
    if (options.signal.aborted) return checkEnded();
    const lost = await dropped();
    if (lost) return lost;
    if (cpuSpent.signal.aborted) return busy();
    return memory.tripped() ? overBudget() : failed('The browser failed while rendering the page.');
  } finally {
    cpu?.stop();
    memory.stop();
    const closing = context?.close().catch(() => {});
    // A context whose page is stuck in a script still closes (Chromium ends the renderer process); bounded anyway.
    await withDeadline(closing ?? Promise.resolve(), AbortSignal.timeout(5_000));
    lease.release();
  }
}

/**
 * Reads the processor time of the page's renderer process every CPU_POLL_MS (CDP `Performance.getMetrics`
 * `ProcessTime`, which Chromium answers between two steps of a script that never yields) and calls `spent` once
 * the page has used `budgetMs` since the watch began. Where Chromium does not give the figure, the wall-clock
 * limits alone apply.
 */
async function watchPageCpu(context: BrowserContext, page: Page, budgetMs: number, spent: () => void): Promise<{ stop(): void }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  let session;
  try {
    session = await context.newCDPSession(page);
    // Thread ticks: the durations Chromium reports (TaskDuration, the fallback) are then processor time too.
    await session.send('Performance.enable', { timeDomain: 'threadTicks' });
  } catch {
    return { stop };
  }
  const read = async (): Promise<number | null> => {
    const { metrics } = await session.send('Performance.getMetrics');
    const figure = metrics.find((m) => m.name === 'ProcessTime') ?? metrics.find((m) => m.name === 'TaskDuration');
    return figure ? figure.value * 1000 : null;
  };
  let used = 0;
  let last: number | null = null;
  const poll = async () => {
    let now: number | null;
    try {
      now = await read();
    } catch {
      return; // the page or its session is gone
    }
    if (stopped || now === null) return;
    // A navigation to another site moves the page to a new renderer process, whose figure starts from zero.
    if (last !== null) used += now >= last ? now - last : now;
    last = now;
    if (used >= budgetMs) {
      spent();
      return;
    }
    timer = setTimeout(() => void poll(), CPU_POLL_MS);
  };
  await poll();
  return { stop };
}

/** Waits until no request has been in flight for QUIET_MS, the time is up or the signal aborts, or the page is gone. */
async function settled(meter: Meter, remaining: () => number, signal: AbortSignal, gone: () => boolean): Promise<void> {
  while (remaining() > 0 && !signal.aborted && !gone()) {
    if (meter.inFlight === 0 && performance.now() - meter.lastActivity >= QUIET_MS) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, remaining())));
  }
}

/** The promise's value, or null if the signal aborts first. */
function withDeadline<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | null> {
  return raceSignal(promise, signal).catch((error: unknown) => {
    if (signal.aborted && error === signal.reason) return null;
    throw error;
  });
}

/** Installs the first wall on a context: every request and WebSocket of every page in it goes through here. */
async function guardContext(context: BrowserContext, served: ServedDocument, options: CaptureOptions, meter: Meter, deadline: AbortSignal, timeoutMs: number): Promise<void> {
  // WebRTC opens its own connections (STUN, TURN over TCP) that no route sees: its constructors are removed
  // from every document before the document's own scripts run (iframes and popups included).
  await context.addInitScript(NO_WEBRTC_SCRIPT);
  // WebMCP tools are recorded as the page registers them, never called (webmcp-recorder.ts).
  await context.addInitScript(RECORDER_SCRIPT);
  // A WebSocket is never connected: it is closed as soon as the page opens it.
  await context.routeWebSocket(/.*/, (ws) => {
    meter.refused++;
    options.outbound?.log?.start({ purpose: SUBRESOURCE, method: 'GET', url: ws.url(), userAgent: null })({ refusedBy: 'renderer', why: 'Rendering never connects a WebSocket.' });
    void ws.close({ code: 1008, reason: 'not available while rendering' }).catch(() => {});
  });
  let documentServed = false;
  await context.route('**/*', async (route) => {
    meter.inFlight++;
    meter.lastActivity = performance.now();
    try {
      const request = route.request();
      // The page itself: the bytes the check already fetched, so both views start from the same HTML.
      if (!documentServed && request.isNavigationRequest() && request.url() === served.url && request.frame().parentFrame() === null) {
        documentServed = true;
        await fulfilDocument(route, served);
        return;
      }
      await guardRequest(route, options, meter, deadline, timeoutMs);
    } finally {
      meter.inFlight--;
      meter.lastActivity = performance.now();
    }
  });
}

async function refuse(route: Route, meter: Meter): Promise<void> {
  meter.refused++;
  await route.abort('blockedbyclient').catch(() => {});
}

/** What the check's request log calls every request of the rendered page. */
const SUBRESOURCE = 'rendered page subresource';

/** A request the renderer will not send at all: a line of the check's request log saying why, then refused. */
function refuseUnsent(route: Route, meter: Meter, options: CaptureOptions, why: string): Promise<void> {
  const request = route.request();
  options.outbound?.log?.start({ purpose: SUBRESOURCE, method: request.method(), url: request.url(), userAgent: null })({ refusedBy: 'renderer', why });
  return refuse(route, meter);
}

/**
 * Every request but the page itself: refused when it is an image, media or font, not a GET (beacons, form
 * posts: the browser sends nothing on our behalf), past the caps, or refused by safeFetch (private and
 * local addresses, IP literals, non-default ports, redirects to any of those); otherwise fetched by
 * safeFetch and handed to the browser.
 */
async function guardRequest(route: Route, options: CaptureOptions, meter: Meter, deadline: AbortSignal, timeoutMs: number): Promise<void> {
  const request = route.request();
  let url: URL;
  try {
    url = new URL(request.url());
  } catch {
    return refuse(route, meter);
  }
  // Only what would have gone over the network is a line of the log: a data: or blob: address is not a request.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse(route, meter);
  if (deadline.aborted) return refuseUnsent(route, meter, options, 'The rendering had ended when the page asked for it.');
  if (SKIPPED_TYPES.has(request.resourceType())) return refuseUnsent(route, meter, options, `Rendering does not fetch a page's ${request.resourceType()} files.`);
  if (request.method() !== 'GET') return refuseUnsent(route, meter, options, `Rendering sends nothing but GET on the page's behalf (this was ${request.method()}).`);
  const bytesLeft = RENDER_MAX_BYTES - meter.bytes;
  if (meter.attempts >= RENDER_MAX_REQUESTS) return refuseUnsent(route, meter, options, `Rendering sends at most ${RENDER_MAX_REQUESTS} requests.`);
  if (bytesLeft <= 0) return refuseUnsent(route, meter, options, `Rendering reads at most ${RENDER_MAX_BYTES / 1024 / 1024} MB.`);
  meter.attempts++;

  let res;
  try {
    res = await safeFetch(url, {
      signal: deadline,
      hostMap: options.hostMap,
      ...(options.lookup ? { lookup: options.lookup } : {}),
      ...(options.outbound ? { outbound: options.outbound } : {}),
      maxBytes: bytesLeft,
      maxRedirects: RENDER_MAX_REDIRECTS,
      // Not shorter than the page's own time: a browser waits for a slow script, and one given up early would
      // let load fire on a page without it, reported as rendered; past the load limit the page is partial instead.
      timeoutMs,
      accept: request.headers()['accept'] ?? '*/*',
      purpose: SUBRESOURCE,
    });
  } catch (error) {
    if (error instanceof FetchRefusedError) return refuse(route, meter);
    // Sent, but no answer came: the browser sees a failed request, as it would have.
    meter.requests++;
    await route.abort('failed').catch(() => {});
    return;
  }
  meter.requests++;
  // Requests run at once, each allowed what was left when it began: only what fits under the cap once it
  // arrives is handed over. A script or stylesheet cut at the cap would run half; the page goes without it.
  if (res.truncated || res.bytesRead > RENDER_MAX_BYTES - meter.bytes) {
    meter.refused++;
    await route.abort('blockedbyclient').catch(() => {});
    return;
  }
  meter.bytes += res.bytesRead;
  const headers: Record<string, string> = {};
  for (const [name, value] of res.headers) {
    if (!DROPPED_HEADERS.has(name)) headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  withPolicy(headers);
  await route.fulfill({ status: res.status, headers, body: res.bytes }).catch(() => {});
}

async function fulfilDocument(route: Route, served: ServedDocument): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of served.headers) {
    if (!DROPPED_HEADERS.has(name) && name !== 'content-type') headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  // The check holds the page as decoded text: it is handed over as UTF-8 and labelled so.
  const type = served.headers.find(([n]) => n === 'content-type')?.[1] ?? 'text/html';
  headers['content-type'] = /charset=/i.test(type) ? type.replace(/charset=[^;\s]*/i, 'charset=utf-8') : `${type}; charset=utf-8`;
  withPolicy(headers);
  await route.fulfill({ status: served.status, headers, body: Buffer.from(served.body, 'utf8') }).catch(() => {});
}

/** Adds NO_WEBSOCKETS_POLICY beside any policy the site sent (a list of policies: each one is enforced). */
function withPolicy(headers: Record<string, string>): void {
  const own = headers['content-security-policy'];
  headers['content-security-policy'] = own === undefined ? NO_WEBSOCKETS_POLICY : `${own}, ${NO_WEBSOCKETS_POLICY}`;
}
