// The classification of one probe's answer against the browser baseline (lib/checks/visibility/access.ts).
import { describe, expect, it } from 'vitest';
import { assessAccess, classifyProbe, digestHtml, type ProbeResponse } from '@/lib/checks/visibility/access';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
const html = (title: string, n: number, extra = '') => `<!doctype html><html><head><title>${title}</title>${extra}</head><body><p>${words(n)}</p></body></html>`;
const answer = (status: number | null, body = '', headers: Array<[string, string]> = [], failure: ProbeResponse['failure'] = null): ProbeResponse => ({
  userAgent: 'Bot/1.0',
  status,
  headers,
  body,
  failure,
});
const BROWSER = answer(200, html('Widgets', 100));
const outcome = (probe: ProbeResponse, browser = BROWSER) => classifyProbe(probe, browser).access.outcome;

describe('digestHtml', () => {
  it('reads the first title and counts the visible words, skipping comments, scripts, styles and tags', () => {
    const body = '<title>  The  Guide\n</title><!-- a b c --><style>p { x: y }</style><script>var a = "<p>not text</p>";</script><p>one <b>two</b> three</p><noscript>four</noscript>';
    expect(digestHtml(body)).toEqual({ title: 'the guide', words: 3 });
  });

  it('copes with unterminated comments, scripts and tags', () => {
    expect(digestHtml('<p>a b</p><!-- never closed')).toEqual({ title: null, words: 2 });
    expect(digestHtml('x <script>y z')).toEqual({ title: null, words: 1 });
    expect(digestHtml('x <p class="')).toEqual({ title: null, words: 1 });
  });
});

describe('classifyProbe', () => {
  it("a probe held back by the check's own request limits is an error that says so, never blocked", () => {
    const reading = classifyProbe(answer(null, '', [], 'not-sent'), BROWSER);
    expect(reading.access.outcome).toBe('error');
    expect(reading.evidence).toBe("redirected to another site, which this check's request limits did not let it reach (says nothing about the crawler)");
  });

  it('maps statuses: 402 pay, 429 rate-limited, 401/403/404/410/451 and other 4xx blocked, 5xx and 3xx error', () => {
    expect(outcome(answer(402))).toBe('payment-required');
    expect(outcome(answer(429))).toBe('rate-limited');
    for (const status of [401, 403, 404, 410, 451, 406]) expect(outcome(answer(status))).toBe('blocked');
    expect(outcome(answer(500))).toBe('error');
    expect(outcome(answer(503))).toBe('error');
    expect(outcome(answer(304))).toBe('error');
  });

  it('recognises the documented challenge headers whatever the status', () => {
    expect(outcome(answer(403, '', [['cf-mitigated', 'challenge']]))).toBe('challenge');
    expect(outcome(answer(202, '', [['x-amzn-waf-action', 'challenge']]))).toBe('challenge');
    expect(outcome(answer(405, '', [['x-amzn-waf-action', 'captcha']]))).toBe('challenge');
    expect(outcome(answer(429, '', [['x-vercel-mitigated', 'challenge']]))).toBe('challenge');
    // Other values of the same headers are not challenges.
    expect(outcome(answer(403, '', [['x-amzn-waf-action', 'block']]))).toBe('blocked');
  });

  it('recognises challenge pages by title, and by vendor markers on refusals', () => {
    expect(outcome(answer(503, '<title>Just a moment...</title>'))).toBe('challenge');
    expect(outcome(answer(200, '<title>Vercel Security Checkpoint</title>'))).toBe('challenge');
    expect(outcome(answer(403, '<script src="https://geo.captcha-delivery.com/captcha/?x=1"></script>'))).toBe('challenge');
    expect(outcome(answer(403, '<div>denied</div><script src="//client.perimeterx.net/PX1/main.min.js"></script>'))).toBe('challenge');
  });

  it('a vendor script on the same page the browser got is not a challenge; on another page it is', () => {
    const injected = '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>';
    expect(outcome(answer(200, html('Widgets', 100, injected)))).toBe('ok');
    expect(outcome(answer(200, html('Incapsula', 3, '<script src="/_Incapsula_Resource?SWJIYLWA=1"></script>')))).toBe('challenge');
  });

  it('different: another title, or fewer than half the browser\'s words; half exactly is still ok', () => {
    expect(outcome(answer(200, html('Widgets', 100)))).toBe('ok');
    expect(outcome(answer(200, html('widgets ', 100)))).toBe('ok');
    expect(outcome(answer(200, html('Sign in', 100)))).toBe('different');
    // The browser's page has 100 words in <p> plus none elsewhere: 50 is half, 49 is less.
    expect(outcome(answer(200, html('Widgets', 50)))).toBe('ok');
    expect(outcome(answer(200, html('Widgets', 49)))).toBe('different');
  });

  it('compares nothing when the browser did not get a 2xx: a 2xx probe is ok', () => {
    expect(outcome(answer(200, html('Other', 1)), answer(403, 'no'))).toBe('ok');
  });

  it('a reset connection is blocked only when the browser got the page; timeouts and refusals are errors', () => {
    expect(outcome(answer(null, '', [], 'connection'))).toBe('blocked');
    expect(outcome(answer(null, '', [], 'connection'), answer(null, '', [], 'connection'))).toBe('error');
    expect(outcome(answer(null, '', [], 'timeout'))).toBe('error');
    expect(outcome(answer(null, '', [], 'refused'))).toBe('error');
  });

  it('quotes site-sent header values on one line, cut at 80 characters', () => {
    const { evidence } = classifyProbe(answer(402, '', [['crawler-price', `USD 0.01\r\n${'x'.repeat(200)}`]]), BROWSER);
    expect(evidence).toBe(`answered 402 with crawler-price: USD 0.01  ${'x'.repeat(70)}…`);
  });
});

describe('assessAccess', () => {
  it('without probes, nothing is probed and the site summary says so', () => {
    const a = assessAccess(null, 'Chrome');
    expect(a.site).toEqual({ browserStatus: null, browserUserAgent: 'Chrome', probes: 0 });
    expect(a.byToken.size).toBe(0);
  });
});
