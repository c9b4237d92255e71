// The site passes its own AI Visibility Check. The real service (`next start`, a production build) is
// checked by the real check, in this process, exactly as a customer's site is.
//
// How https is stood in for: the check is given a host map (the test-only mechanism of
// lib/outbound/host-map.ts, allowed here because this process is not production) that sends
// pac-site.test to the server's local port. safeFetch then speaks plain HTTP to that port and tells the
// server which scheme the address asked for in X-Forwarded-Proto, as a TLS terminator in front of a real
// deployment does: https://pac-site.test/ arrives as a request that came over https, and the check's own
// http://pac-site.test/ probe arrives as one that came over plain http. The server is configured with
// APP_URL=https://pac-site.test, so its canonical addresses, sitemap and social image name https, and its
// proxy redirects plain-http page requests to https, as it would behind the terminator in service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { PUBLIC_PAGES } from '@/lib/site/metadata';
import { startServer, type RunningServer } from '../support/server';

const HOST = 'pac-site.test';
const ORIGIN = `https://${HOST}`;
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ APP_URL: ORIGIN, SUPPORT_EMAIL: 'help@pac-site.test' });
  // The first e2e file of a run builds the app (ensureBuilt), which takes minutes on a busy machine.
}, 480_000);
afterAll(async () => {
  await server?.stop();
});

const hostMap = () => `${HOST}=127.0.0.1:${server.port}`;
/** A page of the site as a browser behind the terminator would get it. */
const get = (path: string) => fetch(`${server.url}${path}`, { headers: { host: HOST, 'x-forwarded-proto': 'https' }, redirect: 'manual' });

describe('the site on its own visibility check', () => {
  it.each(PUBLIC_PAGES.map((p) => p.path))('%s scores at least 95/100', async (path) => {
    const { report } = await checkVisibility(`${ORIGIN}${path}`, { hostMap: hostMap() });
    const lost = report.findings.map((f) => `${f.id} (-${f.pointsLost}): ${f.observed}`);
    expect(report.score, lost.join('\n')).toBeGreaterThanOrEqual(95);
    expect(report.checkedUrl).toBe(`${ORIGIN}${path}`);
    expect(report.page).toMatchObject({ canonical: `${ORIGIN}${path}`, canonicalIsSelf: true, h1Count: 1, lang: 'en' });
    expect(report.site.https).toEqual({ finalUrlHttps: true, httpRedirectsToHttps: true });
    expect(report.crawlers.filter((c) => !c.allowed)).toEqual([]);
  }, 60_000);
});

describe('what the check reads', () => {
  it('robots.txt lets every crawler in, keeps out the API and the signed-in pages, and names the sitemap', async () => {
    const res = await get('/robots.txt');
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('User-Agent: *\nAllow: /\nDisallow: /api/\nDisallow: /account\nDisallow: /reports/\nDisallow: /purchase/');
    expect(body).toContain(`Sitemap: ${ORIGIN}/sitemap.xml`);
  });

  it('the sitemap lists every public page at its https address', async () => {
    const body = await (await get('/sitemap.xml')).text();
    const locs = [...body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toEqual(PUBLIC_PAGES.map((p) => `${ORIGIN}${p.path}`));
  });

  it('the home page carries the social cards, a generated image, and JSON-LD under the CSP nonce', async () => {
    const res = await get('/');
    const html = await res.text();
    const meta = (attr: string, name: string) => new RegExp(`<meta ${attr}="${name}" content="([^"]*)"`).exec(html)?.[1];
    expect(meta('property', 'og:title')).toBe('Paid Agent Checks: agent payments and AI visibility');
    // Next writes the origin's own address without its trailing slash.
    expect(meta('property', 'og:url')).toBe(ORIGIN);
    expect(meta('name', 'twitter:card')).toBe('summary_large_image');
    const image = meta('property', 'og:image');
    expect(image).toMatch(new RegExp(`^${ORIGIN}/opengraph-image`));
    const png = await get(new URL(image!).pathname + new URL(image!).search);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');

    const nonce = /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy')!)![1];
    const ld = /<script type="application\/ld\+json" nonce="([^"]+)">([^<]+)<\/script>/.exec(html);
    expect(ld?.[1]).toBe(nonce);
    const graph = JSON.parse(ld![2])['@graph'] as Array<Record<string, unknown>>;
    expect(graph.map((n) => n['@type'])).toEqual(['Organization', 'WebSite', 'Service']);
    expect(graph[0].email).toBe('help@pac-site.test');
    const offers = graph[2].offers as Array<{ price: string; priceCurrency: string }>;
    expect(offers.map((o) => `${o.price} ${o.priceCurrency}`)).toEqual(['1.00', '20.00', '70.00', '29.00'].map((p) => `${p} USD`));
  });

  it('a private page has a canonical and is kept out of the index', async () => {
    const html = await (await get('/account')).text();
    expect(html).toContain(`<link rel="canonical" href="${ORIGIN}/account"/>`);
    expect(html).toContain('<meta name="robots" content="noindex, nofollow"/>');
  });

  it('an unknown address answers 404 inside the site chrome', async () => {
    const res = await get('/no-such-page');
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain('<h1>Page not found</h1>');
    expect(html).toContain('aria-label="Main"');
    expect(html).toContain('href="/contact"');
  });

  it('a page asked for over plain http is redirected to its https address', async () => {
    const res = await fetch(`${server.url}/pricing?x=1`, { headers: { host: HOST, 'x-forwarded-proto': 'http' }, redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/pricing?x=1`);
  });
});
