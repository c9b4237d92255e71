import { once } from 'node:events';
import net from 'node:net';
import { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_MAX_BYTES,
  FetchFailedError,
  FetchRefusedError,
  isPublicAddress,
  readCapped,
  safeFetch,
  userAgent,
  type LookupFn,
  type ResolvedAddress,
} from '@/lib/outbound/safe-fetch';
import { gzipLayers, startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { answerEverySocketFrom, type Dial } from '../support/route-sockets';

const KB = 1024;
const MB = 1024 * 1024;

/** A resolver that answers from a script and counts how often it was asked. */
function scriptedLookup(...answers: Array<ResolvedAddress[] | Error>): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return Object.assign(fn, { calls });
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the fetch to fail');
}

async function until(condition: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

const html = (n: number) => '<!doctype html><p>' + 'a'.repeat(Math.max(0, n - 18));

describe('safeFetch against the fixture site', () => {
  let site: FixtureSite;
  let hostMap: string;
  const fetchSite = (path: string, options: Parameters<typeof safeFetch>[1] = {}) =>
    safeFetch(new URL(`https://site.test${path}`), { hostMap, ...options });

  beforeAll(async () => {
    const chain = (from: number, to: number) =>
      Object.fromEntries(
        Array.from({ length: to - from }, (_, i) => [`/hop${from + i}`, { redirect: `/hop${from + i + 1}`, status: 302 }]),
      );
    site = await startFixtureSite({
      '/': { body: '<title>Home</title>' },
      '/robots-headers': {
        headers: [
          ['X-Robots-Tag', 'googlebot: noindex'],
          ['Content-Type', 'text/html'],
          ['X-Robots-Tag', 'noarchive'],
          ['x-robots-tag', 'max-snippet: 50, nosnippet'],
        ],
        body: 'ok',
      },
      '/start': { redirect: 'http://site.test/step', status: 301 },
      '/step': { redirect: '/final?x=1#frag', status: 308 },
      '/final': { body: 'final' },
      ...chain(1, 5), // /hop1 .. /hop4 -> /hop5
      '/hop5': { body: 'after four redirects' },
      ...chain(10, 15), // /hop10 .. /hop14 -> /hop15
      '/hop15': { body: 'after five redirects' },
      ...chain(20, 26), // six redirects
      '/hop26': { body: 'never reached' },
      '/loop-a': { redirect: '/loop-b' },
      '/loop-b': { redirect: '/loop-a' },
      '/self': { redirect: '/self' },
      '/to-ip': { redirect: 'http://127.0.0.1/' },
      '/to-decimal-ip': { redirect: 'http://2130706433/' },
      '/to-mapped-v6': { redirect: 'http://[::ffff:127.0.0.1]/' },
      '/to-localhost': { redirect: 'http://localhost/' },
      '/to-metadata': { redirect: 'http://169.254.169.254/latest/meta-data/' },
      '/to-port': { redirect: 'https://site.test:6379/' },
      '/to-file': { redirect: 'file:///etc/passwd' },
      '/to-credentials': { redirect: 'https://user:pass@site.test/' },
      '/to-private-name': { redirect: 'https://private.example.com/' },
      '/no-location': { status: 302, body: 'moved, but where?' },
      '/not-found': { status: 404, body: 'gone' },
      '/big': { body: html(600 * KB) },
      '/exact': { body: 'b'.repeat(DEFAULT_MAX_BYTES) },
      '/big-gzip': { body: html(2 * MB), encoding: 'gzip' },
      '/bomb': { body: Buffer.alloc(50 * MB), encoding: 'gzip', headers: { 'content-type': 'application/octet-stream' } },
      '/small-gzip': { body: '<p>zipped</p>', encoding: 'gzip' },
      '/small-br': { body: '<p>brotli</p>', encoding: 'br' },
      '/small-deflate': { body: '<p>deflated</p>', encoding: 'deflate' },
      '/bad-gzip': { body: 'not gzip at all', headers: { 'content-encoding': 'gzip' } },
      '/zstd': { body: 'whatever', headers: { 'content-encoding': 'zstd' } },
      '/gzip-twice': { body: gzipLayers('<p>twice</p>', 2), headers: { 'content-encoding': 'gzip, gzip' } },
      '/gzip-two-lines': { body: gzipLayers('<p>twice</p>', 2), headers: [['Content-Encoding', 'gzip'], ['Content-Encoding', 'gzip']] },
      '/gzip-3000': { body: gzipLayers(html(600 * KB), 3000), headers: { 'content-encoding': Array(3000).fill('gzip').join(',') } },
      '/gzip-identity': { body: zlib.gzipSync('<p>once</p>'), headers: { 'content-encoding': 'identity, gzip' } },
      // 50 MB of empty gzip members: each is valid and decodes to nothing, so only a cap on received bytes stops it.
      '/empty-members': {
        headers: { 'content-encoding': 'gzip' },
        stream: { bytes: 50 * MB, chunk: Buffer.concat(Array(3277).fill(zlib.gzipSync(Buffer.alloc(0)))) },
      },
      '/latin1': { headers: { 'content-type': 'text/html; charset=iso-8859-1' }, body: Buffer.from([0x63, 0x61, 0x66, 0xe9]) },
      '/meta-charset': { headers: { 'content-type': 'text/html' }, body: Buffer.concat([Buffer.from('<meta charset="windows-1252"><p>'), Buffer.from([0x93, 0x68, 0x69, 0x94])]) },
      '/slow': { delayMs: 150, body: 'late' },
      '/hang': { hang: true },
      '/reset': { reset: true },
      '/drip': { drip: { chunk: 'x', intervalMs: 50 } },
      '/stall': { drip: { chunk: 'x', intervalMs: 1000, count: 3 } },
      '/huge': { stream: { bytes: 50 * MB } },
      '/proto': (req) => ({ body: String(req.headers['x-forwarded-proto']) }),
    });
    hostMap = site.hostMap(['site.test']);
  });

  afterAll(async () => {
    await site.close();
  });

  it('fetches through the host map, reporting the public URL and sending Host and User-Agent', async () => {
    const before = site.log.length;
    const res = await fetchSite('/#fragment');
    expect(res).toMatchObject({
      requestedUrl: 'https://site.test/#fragment',
      url: 'https://site.test/',
      status: 200,
      body: '<title>Home</title>',
      bytesRead: 19,
      truncated: false,
      redirects: [],
    });
    expect(res.header('Content-Type')).toBe('text/html; charset=utf-8');
    const seen = site.log[before];
    expect(seen.path).toBe('/');
    expect(seen.host).toBe('site.test');
    expect(seen.headers['user-agent']).toBe(userAgent());
    expect(seen.headers['user-agent']).toMatch(/^PaidAgentChecks\/2\.0 \(\+https?:\/\/.+\/docs\)$/);
    expect(seen.headers['accept-encoding']).toMatch(/gzip/);
  });

  it('tells the stand-in server which scheme the URL asked for', async () => {
    expect((await fetchSite('/proto')).body).toBe('https');
    const http = await safeFetch(new URL('http://site.test/proto'), { hostMap });
    expect(http.body).toBe('http');
    expect(http.url).toBe('http://site.test/proto');
  });

  it('returns non-2xx statuses as results, not errors', async () => {
    const res = await fetchSite('/not-found');
    expect(res.status).toBe(404);
    expect(res.body).toBe('gone');
    const moved = await fetchSite('/no-location');
    expect(moved.status).toBe(302);
    expect(moved.redirects).toEqual([]);
  });

  it('keeps repeated X-Robots-Tag headers as separate raw entries, in order', async () => {
    const res = await fetchSite('/robots-headers');
    expect(res.headerAll('X-Robots-Tag')).toEqual(['googlebot: noindex', 'noarchive', 'max-snippet: 50, nosnippet']);
    expect(res.header('x-robots-tag')).toBe('googlebot: noindex');
    expect(res.header('x-not-there')).toBeNull();
    expect(res.headerAll('x-not-there')).toEqual([]);
    const names = res.headers.map(([name]) => name);
    expect(names.slice(0, 4)).toEqual(['x-robots-tag', 'content-type', 'x-robots-tag', 'x-robots-tag']);
    expect(names.every((n) => n === n.toLowerCase())).toBe(true);
  });

  it('records the redirect chain with statuses, across schemes, and drops fragments', async () => {
    const res = await fetchSite('/start');
    expect(res.redirects).toEqual([
      { url: 'https://site.test/start', status: 301 },
      { url: 'http://site.test/step', status: 308 },
    ]);
    expect(res.url).toBe('http://site.test/final?x=1');
    expect(res.requestedUrl).toBe('https://site.test/start');
    expect(res.body).toBe('final');
  });

  it('follows four and five redirects', async () => {
    expect((await fetchSite('/hop1')).redirects).toHaveLength(4);
    const five = await fetchSite('/hop10');
    expect(five.redirects).toHaveLength(5);
    expect(five.body).toBe('after five redirects');
  });

  it('refuses a sixth redirect', async () => {
    const before = site.requests.length;
    const err = await failure(fetchSite('/hop20'));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('too-many-redirects');
    expect(err.message).toMatch(/more than 5/);
    expect(site.requests.slice(before)).not.toContain('/hop26');
  });

  it.each(['/loop-a', '/self'])('detects a redirect loop from %s', async (path) => {
    const err = await failure(fetchSite(path));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('redirect-loop');
  });

  it.each([
    ['/to-ip', /IP address/],
    ['/to-decimal-ip', /IP address/],
    ['/to-mapped-v6', /IP address/],
    ['/to-localhost', /Internal or reserved/],
    ['/to-metadata', /IP address/],
    ['/to-port', /default port/],
    ['/to-file', /http:\/\//],
    ['/to-credentials', /user name or password/],
  ])('refuses the redirect %s before connecting to it', async (path, reason) => {
    const lookup = scriptedLookup([v4('93.184.215.14')]);
    const err = await failure(fetchSite(path, { lookup }));
    expect(err).toBeInstanceOf(FetchRefusedError);
    expect((err as FetchRefusedError).code).toBe('invalid-url');
    expect(err.message).toMatch(/redirected to an address that cannot be checked/);
    expect(err.message).toMatch(reason);
    expect(lookup.calls).toEqual([]);
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    const lookup = scriptedLookup([v4('10.0.0.5')]);
    const err = await failure(fetchSite('/to-private-name', { lookup }));
    expect(err).toBeInstanceOf(FetchRefusedError);
    expect((err as FetchRefusedError).code).toBe('private-address');
    expect(lookup.calls).toEqual(['private.example.com']);
  });

  it('cuts a page over 512 KB at exactly 512 KB', async () => {
    const res = await fetchSite('/big');
    expect(res.truncated).toBe(true);
    expect(res.bytesRead).toBe(512 * KB);
    expect(res.body.length).toBe(512 * KB);
    expect(res.body.startsWith('<!doctype html>')).toBe(true);
  });

  it('does not mark a page of exactly 512 KB as truncated', async () => {
    const res = await fetchSite('/exact');
    expect(res.truncated).toBe(false);
    expect(res.bytesRead).toBe(DEFAULT_MAX_BYTES);
  });

  it('honours a smaller maxBytes', async () => {
    const res = await fetchSite('/', { maxBytes: 7 });
    expect(res).toMatchObject({ body: '<title>', bytesRead: 7, truncated: true });
  });

  it('caps the decoded size of a gzip page, not the compressed size', async () => {
    const res = await fetchSite('/big-gzip');
    expect(res.header('content-encoding')).toBe('gzip');
    expect(Number(res.header('content-length'))).toBeLessThan(64 * KB);
    expect(res.truncated).toBe(true);
    expect(res.bytesRead).toBe(512 * KB);
    expect(res.body.startsWith('<!doctype html><p>aaa')).toBe(true);
  });

  it('stops inflating a 50 MB gzip bomb at the cap', async () => {
    const res = await fetchSite('/bomb');
    expect(res.truncated).toBe(true);
    expect(res.bytesRead).toBe(512 * KB);
  });

  it.each([
    ['/small-gzip', '<p>zipped</p>'],
    ['/small-br', '<p>brotli</p>'],
    ['/small-deflate', '<p>deflated</p>'],
  ])('decodes %s', async (path, text) => {
    const res = await fetchSite(path);
    expect(res.body).toBe(text);
    expect(res.truncated).toBe(false);
  });

  it.each([
    ['in one header', '/gzip-twice', 2],
    ['on two header lines', '/gzip-two-lines', 2],
    ['3,000 deep', '/gzip-3000', 3000],
  ])('refuses a page with stacked Content-Encodings (%s) without decoding it', async (_how, path, layers) => {
    const err = await failure(fetchSite(path));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('bad-response');
    expect(err.message).toBe(`The site sent the page with ${layers} content encodings stacked; the check reads at most one.`);
  });

  it('reads one coding listed next to identity', async () => {
    expect((await fetchSite('/gzip-identity')).body).toBe('<p>once</p>');
  });

  it('caps the received bytes of a compressed page that decodes to nothing', async () => {
    const before = site.log.length;
    const res = await fetchSite('/empty-members');
    expect(res).toMatchObject({ body: '', bytesRead: 0, truncated: true });
    const entry = site.log[before];
    expect(entry.path).toBe('/empty-members');
    await until(() => entry.closedEarly);
    expect(entry.closedEarly).toBe(true);
    expect(entry.bytesWritten).toBeLessThan(16 * MB);
  });

  it('fails cleanly on a body that does not match its Content-Encoding', async () => {
    for (const path of ['/bad-gzip', '/zstd']) {
      const err = await failure(fetchSite(path));
      expect(err).toBeInstanceOf(FetchFailedError);
      expect((err as FetchFailedError).code).toBe('bad-response');
    }
  });

  it('decodes text with the charset from Content-Type or a meta tag', async () => {
    expect((await fetchSite('/latin1')).body).toBe('café');
    expect((await fetchSite('/meta-charset')).body).toBe('<meta charset="windows-1252"><p>\u201chi\u201d');
  });

  it('measures time to response headers', async () => {
    const res = await fetchSite('/slow');
    expect(res.ttfbMs).toBeGreaterThanOrEqual(140);
    expect(Number.isInteger(res.ttfbMs)).toBe(true);
  });

  it('times out waiting for headers from a server that hangs', async () => {
    const err = await failure(fetchSite('/hang', { headersTimeoutMs: 300 }));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('timeout');
    expect(err.message).not.toMatch(/UND_ERR|at .*\.js/);
  });

  it('stops when the caller\'s deadline for the whole check passes', async () => {
    const err = await failure(fetchSite('/hang', { signal: AbortSignal.timeout(300) }));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('timeout');
  });

  it('gives up on a page that drips forever', async () => {
    const err = await failure(fetchSite('/drip', { timeoutMs: 500 }));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('timeout');
  });

  it('gives up on a body that stalls between chunks', async () => {
    const err = await failure(fetchSite('/stall', { bodyTimeoutMs: 300 }));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('timeout');
    expect(err.message).toMatch(/stopped sending/);
  });

  it('reports a connection reset', async () => {
    const err = await failure(fetchSite('/reset'));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect((err as FetchFailedError).code).toBe('connection');
    expect(err.message).toBe('The connection to the site was reset.');
  });

  it('reads a 50 MB page only up to the cap and closes the connection early', async () => {
    const before = site.log.length;
    const res = await fetchSite('/huge');
    expect(res.truncated).toBe(true);
    expect(res.bytesRead).toBe(512 * KB);
    const entry = site.log[before];
    expect(entry.path).toBe('/huge');
    await until(() => entry.closedEarly);
    expect(entry.closedEarly).toBe(true);
    // Loopback socket buffers hold a few MB at most; far less than the page left the server.
    expect(entry.bytesWritten).toBeLessThan(16 * MB);
  });
});

describe('readCapped', () => {
  it('destroys the decoder and the body when the deadline passes after the whole body has arrived', async () => {
    const deadline = new AbortController();
    const body = Readable.from([Buffer.from('the whole compressed page')]);
    // A decoder still busy with input it already has: it never hands anything back.
    const busyDecoder = new Transform({ transform() {} });
    const reading = readCapped(body, busyDecoder, { maxBytes: 1024, signal: deadline.signal });
    await once(body, 'end');
    const reason = new Error('check deadline');
    deadline.abort(reason);
    const err = await failure(reading);
    expect(err.name).toBe('AbortError');
    expect(err.cause).toBe(reason);
    expect(busyDecoder.destroyed).toBe(true);
    expect(body.destroyed).toBe(true);
  });
});

describe('safeFetch DNS vetting', () => {
  it.each([
    ['loopback', [v4('127.0.0.1')]],
    ['private 10/8', [v4('10.0.0.5')]],
    ['private 192.168/16', [v4('192.168.1.1')]],
    ['cloud metadata', [v4('169.254.169.254')]],
    ['carrier-grade NAT', [v4('100.64.0.1')]],
    ['unspecified', [v4('0.0.0.0')]],
    ['documentation range', [v4('203.0.113.7')]],
    ['IPv6 loopback', [v6('::1')]],
    ['IPv6 unique local', [v6('fd00::1')]],
    ['IPv6 link local', [v6('fe80::1')]],
    ['IPv4-mapped IPv6 loopback', [v6('::ffff:127.0.0.1')]],
    ['IPv4-mapped IPv6 private', [v6('::ffff:10.0.0.1')]],
    ['NAT64 of loopback', [v6('64:ff9b::7f00:1')]],
    ['6to4', [v6('2002:7f00:1::1')]],
    ['public then private', [v4('93.184.215.14'), v4('10.0.0.1')]],
    ['private then public', [v6('::1'), v4('93.184.215.14')]],
  ])('refuses a name that resolves to %s, before connecting', async (_label, answer) => {
    const lookup = scriptedLookup(answer);
    const err = await failure(safeFetch(new URL('https://shop.example.com/'), { lookup, hostMap: '' }));
    expect(err).toBeInstanceOf(FetchRefusedError);
    expect((err as FetchRefusedError).code).toBe('private-address');
    expect(err.message).toMatch(/shop\.example\.com resolves to a private/);
    expect(lookup.calls).toEqual(['shop.example.com']);
  });

  it('classifies addresses with ipaddr.js ranges', () => {
    expect(isPublicAddress('93.184.215.14')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    expect(isPublicAddress('::ffff:93.184.215.14')).toBe(true);
    expect(isPublicAddress('::ffff:169.254.169.254')).toBe(false);
    expect(isPublicAddress('not an ip')).toBe(false);
  });

  it.each(['::7f00:1', '::a9fe:a9fe', '::a00:1', '::808:808', '0:0:0:0:0:0:7f00:1'])(
    'refuses the IPv4-compatible IPv6 address %s (::/96), whatever IPv4 it carries',
    (address) => {
      expect(isPublicAddress(address)).toBe(false);
    },
  );

  it.each(['::1:0:0:1', '100:0:0:1::', '4000::1', 'e000::1', '1fff:ffff::1'])(
    'refuses the IPv6 address %s outside global unicast (2000::/3), which ipaddr.js still calls unicast',
    (address) => {
      expect(isPublicAddress(address)).toBe(false);
    },
  );

  it('reports a name that does not resolve', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nope.example.com'), { code: 'ENOTFOUND' });
    for (const lookup of [scriptedLookup(notFound), scriptedLookup([])]) {
      const err = await failure(safeFetch(new URL('https://nope.example.com/'), { lookup, hostMap: '' }));
      expect(err).toBeInstanceOf(FetchFailedError);
      expect((err as FetchFailedError).code).toBe('dns');
      expect(err.message).not.toMatch(/getaddrinfo/);
    }
  });

  it('refuses an IP-literal or internal URL handed to it directly', async () => {
    for (const href of ['http://127.0.0.1/', 'http://[::1]/', 'http://localhost/', 'https://example.com:8443/']) {
      const lookup = scriptedLookup([v4('93.184.215.14')]);
      const err = await failure(safeFetch(new URL(href), { lookup, hostMap: '' }));
      expect(err).toBeInstanceOf(FetchRefusedError);
      expect((err as FetchRefusedError).code).toBe('invalid-url');
      expect(lookup.calls).toEqual([]);
    }
  });
});

describe('safeFetch pins the connection to the vetted address', () => {
  let site: FixtureSite;
  const dialled: Dial[] = [];

  beforeAll(async () => {
    site = await startFixtureSite({
      '/': { body: 'public page' },
      '/again': { redirect: '/' },
    });
    answerEverySocketFrom(site.port, dialled);
  });

  afterEach(() => {
    dialled.length = 0;
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await site.close();
  });

  it('connects to the address that was checked even when DNS now answers a private one', async () => {
    const rebinding = scriptedLookup([v4('93.184.215.14')], [v4('127.0.0.1')]);
    const res = await safeFetch(new URL('http://rebind.example.com/'), { lookup: rebinding, hostMap: '' });
    expect(res.body).toBe('public page');
    // One DNS answer was consulted; the socket resolver only knew that vetted answer.
    expect(rebinding.calls).toEqual(['rebind.example.com']);
    expect(dialled).toEqual([{ host: 'rebind.example.com', pinned: ['93.184.215.14'] }]);
    const seen = site.log[site.log.length - 1];
    expect(seen.host).toBe('rebind.example.com');
  });

  it('re-resolves on each redirect hop and refuses a hop that rebinds to a private address', async () => {
    const rebinding = scriptedLookup([v4('93.184.215.14')], [v4('10.0.0.5')]);
    const before = site.requests.length;
    const err = await failure(safeFetch(new URL('http://rebind.example.com/again'), { lookup: rebinding, hostMap: '' }));
    expect(err).toBeInstanceOf(FetchRefusedError);
    expect((err as FetchRefusedError).code).toBe('private-address');
    expect(rebinding.calls).toEqual(['rebind.example.com', 'rebind.example.com']);
    expect(site.requests.slice(before)).toEqual(['/again']);
  });

  it('never lets the socket resolve a name it did not vet', async () => {
    const lookup = scriptedLookup([v4('93.184.215.14')]);
    await safeFetch(new URL('http://rebind.example.com/'), { lookup, hostMap: '' });
    expect(dialled[0].pinned).toEqual(['93.184.215.14']);
    // Ask the same socket resolver about another name: it must refuse, not fall back to real DNS.
    const options = vi.mocked(net.connect).mock.calls.at(-1)?.[0] as unknown as { lookup: net.LookupFunction };
    const answer = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      options.lookup('evil.example.com', {}, (err) => resolve(err)),
    );
    expect(answer?.code).toBe('ENOTFOUND');
  });
});

describe('CHECK_HOST_MAP in production', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('safeFetch refuses to use a host map in production, from the env or an option', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('CHECK_HOST_MAP', 'site.test=127.0.0.1:4000');
    await expect(safeFetch(new URL('https://site.test/'))).rejects.toThrow(/CHECK_HOST_MAP/);
    vi.stubEnv('CHECK_HOST_MAP', '');
    await expect(safeFetch(new URL('https://site.test/'), { hostMap: 'site.test=127.0.0.1:4000' })).rejects.toThrow(
      /CHECK_HOST_MAP/,
    );
  });
});

describe('fixture site', () => {
  it('serves repeated headers, gzip and 404s, and logs requests', async () => {
    const site = await startFixtureSite({
      '/z': { body: 'hello', encoding: 'gzip', headers: [['X-A', '1'], ['X-A', '2']] },
    });
    try {
      const res = await fetch(site.url('/z'));
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(await res.text()).toBe('hello');
      expect(res.headers.get('x-a')).toBe('1, 2');
      expect((await fetch(site.url('/missing'))).status).toBe(404);
      site.routes['/late'] = { status: 201, body: 'added later' };
      const late = await fetch(site.url('/late'));
      expect([late.status, await late.text()]).toEqual([201, 'added later']);
      expect(site.requests).toEqual(['/z', '/missing', '/late']);
      expect(site.hostMap(['a.test', 'b.test'])).toBe(`a.test=127.0.0.1:${site.port},b.test=127.0.0.1:${site.port}`);
    } finally {
      await site.close();
    }
  });
});
