// Every SSRF case we know of (private, loopback, link-local and metadata addresses in every spelling, names that
// resolve to them, redirects into them, DNS rebinding), sent through the public paid endpoint
// POST /api/agent/ai-visibility with a prepaid key: refused with 400 invalid-url (before any DNS lookup) or
// 422 site-unreachable (after DNS or at a redirect hop), nothing charged, and no socket ever opened towards a
// private, local or reserved address. Then DNS rebinding between the check and the fetch.
//
// Technique (as in tests/outbound/safe-fetch.test.ts): the system resolver (dns.promises.lookup, what
// safe-fetch asks when no resolver is injected) answers from a script, and net.connect is replaced by a
// stand-in for the internet that records which addresses the socket's own resolver offers (the pins) and
// then connects to a local fixture. No CHECK_HOST_MAP: the production guard path is the one under test.
import dns from 'node:dns';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isPublicAddress } from '@/lib/outbound/safe-fetch';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { answerEverySocketFrom, type Dial } from '../support/route-sockets';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { agentCheckRoute } from '../support/check-routes';

const { POST: visibilityPOST } = agentCheckRoute('ai-visibility');

const APP_URL = 'http://localhost:3000';
const PUBLIC_IP = '93.184.215.14';

let rt: TestRuntime;
let site: FixtureSite;
let key: string;
let keyHash: string;
const savedHostMap = process.env.CHECK_HOST_MAP;

/** Scripted DNS: name -> successive answers (the last one repeats). */
const answers = new Map<string, string[][]>();
const lookups: Array<{ name: string; answer: string[] }> = [];
/** Every socket opened: the name asked for and the addresses its resolver was pinned to. */
const dialled: Dial[] = [];

const PRIVATE_ANSWERS: Array<[string, string[]]> = [
  ['loopback', ['127.0.0.1']],
  ['private 10/8', ['10.0.0.5']],
  ['private 172.16/12', ['172.16.3.4']],
  ['private 192.168/16', ['192.168.1.1']],
  ['cloud metadata (link-local)', ['169.254.169.254']],
  ['carrier-grade NAT', ['100.64.0.1']],
  ['unspecified', ['0.0.0.0']],
  ['documentation range', ['203.0.113.7']],
  ['broadcast', ['255.255.255.255']],
  ['multicast', ['224.0.0.1']],
  ['IPv6 loopback', ['::1']],
  ['IPv6 unique local', ['fd00::1']],
  ['IPv6 link local', ['fe80::1']],
  ['IPv6 unspecified', ['::']],
  ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
  ['IPv4-mapped private', ['::ffff:10.0.0.1']],
  ['IPv4-mapped metadata', ['::ffff:169.254.169.254']],
  ['NAT64 of loopback (rfc6052)', ['64:ff9b::7f00:1']],
  ['IPv4-compatible loopback (::/96)', ['::7f00:1']],
  ['IPv4-compatible metadata (::/96)', ['::a9fe:a9fe']],
  ['6to4 of loopback', ['2002:7f00:1::1']],
  ['public and private mixed', [PUBLIC_IP, '10.0.0.1']],
  ['private and public mixed', ['::1', PUBLIC_IP]],
];

beforeAll(async () => {
  delete process.env.CHECK_HOST_MAP;
  const hops = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`/hop${i}`, { redirect: `/hop${i + 1}`, status: 302 }]));
  site = await startFixtureSite({
    '/': { body: '<!doctype html><title>Public page</title><p>public page</p>' },
    '/to-ip': { redirect: 'http://127.0.0.1/', status: 302 },
    '/to-decimal-ip': { redirect: 'http://2130706433/', status: 302 },
    '/to-mapped-ip': { redirect: 'http://[::ffff:127.0.0.1]/', status: 302 },
    '/to-localhost': { redirect: 'http://localhost/', status: 302 },
    '/to-redis': { redirect: `http://public.example.com:6379/`, status: 302 },
    '/to-metadata': { redirect: 'http://169.254.169.254/latest/meta-data/', status: 302 },
    '/to-internal': { redirect: 'http://metadata.google.internal/computeMetadata/v1/', status: 302 },
    '/to-file': { redirect: 'file:///etc/passwd', status: 302 },
    '/to-private-name': { redirect: 'http://private.example.com/', status: 302 },
    '/to-rebinding-hop': { redirect: 'http://rebind-hop.example.com/', status: 302 },
    ...hops,
  });

  answers.set('public.example.com', [[PUBLIC_IP]]);
  answers.set('private.example.com', [['10.0.0.5']]);
  answers.set('rebind-hop.example.com', [['10.0.0.6']]);
  // DNS rebinding: the first answer is public, every later one private.
  answers.set('rebind.example.com', [[PUBLIC_IP], ['127.0.0.1']]);
  PRIVATE_ANSWERS.forEach(([, a], i) => answers.set(`p${i}.example.com`, [a]));

  const asked = new Map<string, number>();
  vi.spyOn(dns.promises, 'lookup').mockImplementation((async (hostname: string) => {
    const script = answers.get(hostname.toLowerCase());
    if (!script) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const n = asked.get(hostname) ?? 0;
    asked.set(hostname, n + 1);
    const answer = script[Math.min(n, script.length - 1)];
    lookups.push({ name: hostname, answer });
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as never);

  answerEverySocketFrom(site.port, dialled);

  // Each refused address ends its check before a site answered, which counts against the caller's costly-failure
  // budget; this one caller tries dozens on purpose.
  rt = installTestRuntime({ APP_URL, RATE_LIMIT_PER_IP: '100000', RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_COSTLY_FAILURES: '100000' });
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-100', { calls: 1000 }));
});

afterEach(() => {
  // Whatever a case did, no socket may have been pointed at anything but a public address.
  for (const d of dialled) {
    expect(d.pinned.length).toBeGreaterThan(0);
    for (const address of d.pinned) expect(isPublicAddress(address), `${d.host} pinned to ${address}`).toBe(true);
  }
});

afterAll(async () => {
  vi.restoreAllMocks();
  await rt?.dispose();
  await site?.close();
  if (savedHostMap !== undefined) process.env.CHECK_HOST_MAP = savedHostMap;
});

async function check(url: string) {
  const before = (await balance(rt.store, keyHash)).callsLeft;
  const dialsBefore = dialled.length;
  const lookupsBefore = lookups.length;
  const res = await visibilityPOST(
    new Request(`${APP_URL}/api/agent/ai-visibility`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-forwarded-for': '198.51.100.40' },
      body: JSON.stringify({ url }),
    }),
  );
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: JSON.parse(text) as { type?: string; report?: { status: number; robotsTxt: string; checkedUrl: string } },
    charged: before - (await balance(rt.store, keyHash)).callsLeft,
    dials: dialled.slice(dialsBefore),
    lookups: lookups.slice(lookupsBefore),
  };
}

function expectRefused(r: Awaited<ReturnType<typeof check>>, status: 400 | 422) {
  expect(r.status).toBe(status);
  expect(r.contentType).toBe('application/problem+json');
  expect(r.body.type).toBe(`${PROBLEM_BASE}${status === 400 ? 'invalid-url' : 'site-unreachable'}`);
  expect(r.charged).toBe(0);
}

describe('SSRF through POST /api/agent/ai-visibility', () => {
  it.each([
    ['decimal IPv4', 'http://2130706433/'],
    ['hex IPv4', 'http://0x7f.1/'],
    ['octal IPv4', 'http://0177.0.0.1/'],
    ['short IPv4', 'http://127.1/'],
    ['IPv4-mapped IPv6 literal', 'http://[::ffff:127.0.0.1]/'],
    ['IPv6 loopback literal', 'http://[::1]/'],
    ['zero address', 'http://0/'],
    ['metadata IP literal', 'http://169.254.169.254/latest/meta-data/'],
    ['private IP literal', 'http://10.0.0.1/'],
    ['localhost', 'http://localhost/'],
    ['LOCALHOST with trailing dot', 'http://LOCALHOST./'],
    ['*.localhost', 'http://admin.localhost/'],
    ['.local', 'http://printer.local/'],
    ['.internal', 'http://metadata.google.internal/'],
    ['.home.arpa', 'http://router.home.arpa/'],
    ['.lan', 'http://nas.lan/'],
    ['.corp', 'http://wiki.corp/'],
    ['single-label host', 'http://intranet/'],
    ['non-default port', 'http://public.example.com:8080/'],
    ['redis port', 'http://public.example.com:6379/'],
    ['ftp scheme', 'ftp://public.example.com/'],
    ['userinfo', 'http://user:pass@public.example.com/'],
    ['file scheme', 'file:///etc/passwd'],
  ])('refuses %s (%s) with 400 before any DNS lookup or connection', async (_label, url) => {
    const r = await check(url);
    expectRefused(r, 400);
    expect(r.lookups).toEqual([]);
    expect(r.dials).toEqual([]);
  });

  it.each(PRIVATE_ANSWERS.map(([label], i) => [label, `http://p${i}.example.com/`]))(
    'refuses a name resolving to %s (%s) with 422, without connecting',
    async (_label, url) => {
      const r = await check(url);
      expectRefused(r, 422);
      expect(r.lookups.length).toBeGreaterThan(0);
      expect(r.dials).toEqual([]);
    },
  );

  it('accepts the explicit default port (http://host:80/), fetches the public address, and charges once', async () => {
    const r = await check('http://public.example.com:80/');
    expect(r.status).toBe(200);
    expect(r.body.report?.checkedUrl).toBe('http://public.example.com/');
    expect(r.charged).toBe(1);
    expect(r.dials.length).toBeGreaterThan(0);
    for (const d of r.dials) expect(d).toEqual({ host: 'public.example.com', pinned: [PUBLIC_IP] });
  });

  it.each([
    ['an IP literal', '/to-ip'],
    ['a decimal IP literal', '/to-decimal-ip'],
    ['an IPv4-mapped IPv6 literal', '/to-mapped-ip'],
    ['localhost', '/to-localhost'],
    ['a non-default port (:6379)', '/to-redis'],
    ['the metadata address', '/to-metadata'],
    ['an .internal name', '/to-internal'],
    ['a file: URL', '/to-file'],
    ['a name resolving to a private address', '/to-private-name'],
    ['a second name whose DNS answers private', '/to-rebinding-hop'],
    ['a chain of more than 5 redirects', '/hop0'],
  ])('a public page redirecting to %s: 422, only public hops were fetched, nothing charged', async (_label, path) => {
    const seen = site.requests.length;
    const r = await check(`http://public.example.com${path}`);
    expectRefused(r, 422);
    expect(site.requests.slice(seen)).toContain(path);
    for (const d of r.dials) expect(d.pinned).toEqual([PUBLIC_IP]);
  });

  it('DNS rebinding between check and fetch: the socket only ever knows the vetted public answer', async () => {
    const seen = site.log.length;
    const r = await check('http://rebind.example.com/');
    // The page was fetched from the address that was checked...
    expect(r.status).toBe(200);
    expect(r.body.report?.status).toBe(200);
    expect(r.body.report?.checkedUrl).toBe('http://rebind.example.com/');
    expect(r.charged).toBe(1);
    // ...the name was resolved once for the whole check (the gate keeps each name's vetted answer for the check), so
    // the resolver's later, private answer was never asked for, let alone used...
    const rebinds = r.lookups.filter((l) => l.name === 'rebind.example.com');
    expect(rebinds).toEqual([{ name: 'rebind.example.com', answer: [PUBLIC_IP] }]);
    // ...and every socket opened for this name, the page's and the site files' alike, was pinned to that public
    // answer: the fixture saw every request under the name, none from 127.0.0.1.
    expect(r.dials.length).toBeGreaterThan(1);
    expect(r.dials.every((d) => d.host === 'rebind.example.com' && d.pinned.length === 1 && d.pinned[0] === PUBLIC_IP)).toBe(true);
    expect(site.log.slice(seen).every((l) => l.host === 'rebind.example.com')).toBe(true);
    expect(site.log.slice(seen)[0].path).toBe('/');
  });
});
