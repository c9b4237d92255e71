// Proof of every fetch, rendered: what the check's browser asked for is in the report's request list too, a
// subrequest it fetched as a line like any other and one it refused (an image) with the renderer as refuser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkVisibility, type VisibilityReport } from '@/lib/checks/visibility/check';
import { chromiumSettings } from '../support/chromium';
import { renderWithChromium } from '../support/chromium-suite';
import { startFixtureSite, type FixtureSite } from './fixture-site';
import { spaRoutes } from './render-site';

const settings = chromiumSettings();
renderWithChromium(settings);

let site: FixtureSite;
let report: VisibilityReport;

describe.skipIf(!settings)("the request list of a rendered page (Chromium)", () => {
  beforeAll(async () => {
    const routes = spaRoutes();
    routes['/'] = {
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<!doctype html><html lang="en"><head><title>App</title><script src="/app.js" defer></script></head><body><img src="/logo.png" alt=""><div id="app">Loading</div></body></html>',
    };
    site = await startFixtureSite(routes);
    ({ report } = await checkVisibility('https://site.test/', { hostMap: site.hostMap(['site.test']) }));
  }, 120_000);
  afterAll(() => site?.close());

  it("lists the browser's script as a rendered page subresource and the image it never fetched as refused by the renderer", () => {
    expect(report.page.rendering.state).toBe('rendered');
    const subresources = report.requests.entries.filter((e) => e.purpose === 'rendered page subresource');
    // Which the browser asks for first is its own business: the two are compared in address order.
    const byUrl = [...subresources].sort((a, b) => (a.url < b.url ? -1 : 1));
    expect(byUrl.map((e) => [e.url, e.status, e.refusedBy, e.why])).toEqual([
      ['https://site.test/app.js', 200, null, null],
      ['https://site.test/logo.png', null, 'renderer', "Rendering does not fetch a page's image files."],
    ]);
    expect(site.log.filter((r) => r.path === '/app.js')).toHaveLength(1);
    expect(site.log.some((r) => r.path === '/logo.png')).toBe(false);
  });

  it('lists exactly the requests the site received', () => {
    const listed = report.requests.entries.filter((e) => e.refusedBy === null).map((e) => `${new URL(e.url).pathname} ${e.userAgent}`).sort();
    expect(listed).toEqual(site.log.map((r) => `${r.path} ${r.headers['user-agent']}`).sort());
  });
});
