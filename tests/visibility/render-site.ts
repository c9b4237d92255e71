// Fixture pages for the rendered view: a single-page app whose text a script writes, a page whose script adds
// noindex, and a hostile page that tries every route a browser has to reach a private address.
import type { FixtureRoute } from './fixture-site';
import { ROBOTS, text } from './fixture-pages';

/** 150 distinct words, none of them in the served shell. */
const SPA_WORDS = Array.from({ length: 150 }, (_, i) => `widget${i}`).join(' ');

const js = (body: string) => ({ headers: { 'content-type': 'text/javascript; charset=utf-8' }, body });
const page = (body: string) => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body });

/** The served shell has one word ("Loading"); /app.js writes an h1 of three words, 150 more and a new title. */
export function spaRoutes(): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>App</title><script src="/app.js" defer></script></head>
<body><div id="app">Loading</div></body></html>`),
    '/app.js': js(`
      document.title = 'Widgets for everyone';
      const app = document.getElementById('app');
      app.innerHTML = '<h1>Widgets for everyone</h1><p>${SPA_WORDS}</p>';
    `),
    '/robots.txt': text(ROBOTS),
  };
}

/** The same words in the HTML as served, and a script that only adds a class: nothing depends on JavaScript. */
export function serverRenderedRoutes(): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>Widgets for everyone</title><script src="/app.js" defer></script></head>
<body><div id="app"><h1>Widgets for everyone</h1><p>${SPA_WORDS}</p></div></body></html>`),
    '/app.js': js(`document.body.className = 'ready';`),
    '/robots.txt': text(ROBOTS),
  };
}

/** No robots meta as served; an inline script adds `noindex`. */
export function noindexByScriptRoutes(): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>Widgets</title>
<script>const m = document.createElement('meta'); m.name = 'robots'; m.content = 'noindex'; document.head.appendChild(m);</script>
</head><body><h1>Widgets</h1><p>${SPA_WORDS}</p></body></html>`),
    '/robots.txt': text(ROBOTS),
  };
}

/** A page whose scripts never yield: the rendering fails, the check does not. */
export function busyLoopRoutes(): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html><head><title>Busy</title></head><body><p>Served words</p><script>for (;;) {}</script></body></html>`),
    '/robots.txt': text(ROBOTS),
  };
}

/**
 * The same page as serverRenderedRoutes, but its head first waits on a script the site does not send until `held`
 * settles, and its title comes after that script: the browser's parser stops there, so neither DOMContentLoaded
 * nor load comes while it is held, and the DOM so far has no title, no h1 and no words.
 */
export function heldScriptRoutes(held: Promise<unknown>): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><script src="/held.js"></script><title>Widgets for everyone</title></head>
<body><h1>Widgets for everyone</h1><p>${SPA_WORDS}</p></body></html>`),
    '/held.js': { ...js(`document.documentElement.dataset.ran = 'yes';`), held },
    '/robots.txt': text(ROBOTS),
  };
}

/**
 * Every way a page can make a browser reach `private` (`127.0.0.1:<port>`, `localhost:<port>`, a name the test's
 * resolver sends to 127.0.0.1, a redirect from the site itself): markup, scripts, workers, popups, navigation.
 */
export function hostileRoutes(privatePort: number): Record<string, FixtureRoute> {
  const ip = `http://127.0.0.1:${privatePort}`;
  const local = `http://localhost:${privatePort}`;
  // No port: the URL rules allow it, so it is the resolver's answer (127.0.0.1) that must refuse it.
  const named = 'http://intranet.example';
  const attempts = `
    const ip = ${JSON.stringify(ip)}, local = ${JSON.stringify(local)}, named = ${JSON.stringify(named)};
    const tryIt = (f) => { try { const p = f(); if (p && p.catch) p.catch(() => {}); } catch (e) {} };
    tryIt(() => fetch(ip + '/fetch'));
    tryIt(() => fetch(local + '/fetch', { mode: 'no-cors' }));
    tryIt(() => fetch(named + '/fetch'));
    tryIt(() => fetch('/bounce'));
    tryIt(() => { const x = new XMLHttpRequest(); x.open('GET', ip + '/xhr'); x.send(); });
    tryIt(() => navigator.sendBeacon(ip + '/beacon', 'x'));
    tryIt(() => { const w = new WebSocket('ws://127.0.0.1:${privatePort}/ws'); w.onerror = () => {}; });
    tryIt(() => { const w = new WebSocket('ws://localhost:${privatePort}/ws'); w.onerror = () => {}; });
    tryIt(() => new EventSource(ip + '/events'));
    tryIt(() => { const i = new Image(); i.src = ip + '/image'; });
    tryIt(() => navigator.serviceWorker.register('/sw.js'));
    tryIt(() => new Worker(URL.createObjectURL(new Blob(['fetch(' + JSON.stringify(ip + '/worker') + ').catch(() => {})'], { type: 'text/javascript' }))));
    tryIt(() => window.open(ip + '/popup'));
    tryIt(() => {
      const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${privatePort}' }, { urls: 'turn:127.0.0.1:${privatePort}?transport=tcp', username: 'u', credential: 'c' }] });
      pc.createDataChannel('x');
      pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {});
    });
    tryIt(() => { const f = document.createElement('form'); f.method = 'POST'; f.action = ip + '/form'; f.target = 'sink'; document.body.appendChild(f); f.submit(); });
  `;
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>Hostile</title>
<link rel="preconnect" href="${ip}"><link rel="dns-prefetch" href="${named}">
<link rel="prefetch" href="${ip}/prefetch"><link rel="preload" as="script" href="${local}/preload.js">
<link rel="stylesheet" href="${ip}/style.css"><link rel="stylesheet" href="/style.css">
<script src="${local}/script.js"></script><script src="${named}/script.js"></script><script src="/redirect.js"></script>
</head><body><h1>Hostile</h1><p>Words served with the page.</p>
<img src="${ip}/img.png"><video src="${ip}/video.mp4"></video><object data="${ip}/object"></object><embed src="${ip}/embed">
<iframe src="${ip}/iframe"></iframe><iframe src="${local}/iframe"></iframe><iframe name="sink"></iframe>
<script>${attempts}</script>
</body></html>`),
    // @import and url() from a stylesheet the page may load.
    '/style.css': { headers: { 'content-type': 'text/css' }, body: `@import url("${ip}/import.css"); body { background: url("${ip}/bg.png"); } @font-face { font-family: x; src: url("${ip}/font.woff2"); }` },
    '/redirect.js': { status: 302, redirect: `${ip}/redirected.js` },
    '/bounce': { status: 302, redirect: `http://127.0.0.1/bounced` },
    '/sw.js': js(`self.addEventListener('fetch', () => {});`),
    '/robots.txt': text(ROBOTS),
  };
}

/**
 * WebMCP tools registered by script: two through the current `document.modelContext.registerTool()`, one
 * through the earlier `navigator.modelContext.provideContext()`, and one registered then unregistered. Each
 * tool's `execute` requests /executed, so a tool the renderer called would show in the site's requests.
 */
export function webMcpImperativeRoutes(): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1><p>Widgets for sale.</p>
<script>
  const called = () => fetch('/executed');
  navigator.modelContext.provideContext({ tools: [
    { name: 'legacy_cart', description: 'Shows the cart', inputSchema: { type: 'object', properties: {} }, execute: called },
  ] });
  document.modelContext.registerTool({
    name: 'search-products', description: 'Search the catalogue by keyword',
    inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'Words to look for' } }, required: ['query'] },
    execute: called,
  }).then(() => { document.body.dataset.registered = 'yes'; });
  document.modelContext.registerTool({ name: 'get.page.title', description: 'The page title', execute: called });
  document.modelContext.registerTool({ name: 'temporary', description: 'Registered, then withdrawn', execute: called }).unregister();
  document.modelContext.unregisterTool('nothing-by-this-name');
</script></body></html>`),
    '/robots.txt': text(ROBOTS),
  };
}

/** A form declared as a WebMCP tool (`toolname`, `tooldescription`), and a plain search form beside it. */
export function webMcpDeclarativeRoutes(): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>Cars</title></head><body><h1>Cars</h1>
<form action="/search" method="get"><input type="search" name="q"><button>Go</button></form>
<form toolname="search-cars" tooldescription="Perform a car make/model search" action="/cars" method="POST" toolautosubmit>
  <input type="text" name="make" toolparamdescription="The vehicle's make" required>
  <input type="text" name="model" required>
  <select name="year"><option>2024</option></select>
  <input type="hidden" name="csrf" value="x"><input type="submit" value="Search">
</form></body></html>`),
    '/robots.txt': text(ROBOTS),
  };
}

/** Tools a WebMCP browser refuses or an agent cannot call: a schema of the wrong type, one requiring what it does not define, a bad name. */
export function webMcpInvalidRoutes(): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>Broken tools</title></head><body><h1>Broken tools</h1>
<script>
  document.modelContext.registerTool({ name: 'ok_tool', description: 'Fine', inputSchema: { type: 'object' }, execute() {} });
  document.modelContext.registerTool({ name: 'lookup', description: 'Looks things up', inputSchema: { type: 'string' }, execute() {} });
  document.modelContext.registerTool({ name: 'order', description: 'Orders', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['qty'] }, execute() {} });
  document.modelContext.registerTool({ name: 'has space', description: 'Bad name', execute() {} }).catch(() => {});
  const loop = { type: 'object' }; loop.self = loop;
  document.modelContext.registerTool({ name: 'circular', description: 'Circular schema', inputSchema: loop, execute() {} }).catch(() => {});
</script></body></html>`),
    '/robots.txt': text(ROBOTS),
  };
}

/** A page that registers more tools than the recorder keeps. */
export function webMcpFloodRoutes(count: number): Record<string, FixtureRoute> {
  return {
    '/': page(`<!doctype html><html lang="en"><head><title>Flood</title></head><body><h1>Flood</h1>
<script>for (let i = 0; i < ${count}; i++) document.modelContext.registerTool({ name: 'tool' + i, description: 'x'.repeat(5000), inputSchema: { type: 'object' }, execute() {} });</script>
</body></html>`),
    '/robots.txt': text(ROBOTS),
  };
}
