import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProblemError } from '@/lib/problems';
import { InvalidTargetUrl, normalizeTargetUrl } from '@/lib/outbound/target-url';
import { visibilityProblem } from '@/lib/checks/visibility/entry';

/** The refusal as the edge answers it (the check's entry maps its InvalidTargetUrl to 400 invalid-url). */
function refusal(input: string, allowHosts: string[] = []): ProblemError {
  try {
    normalizeTargetUrl(input, { allowHosts });
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidTargetUrl);
    return visibilityProblem(err) as ProblemError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('normalizeTargetUrl accepts public addresses', () => {
  it.each([
    ['example.com/pricing', 'https://example.com/pricing'],
    ['example.com', 'https://example.com/'],
    ['  https://example.com/a  ', 'https://example.com/a'],
    ['//example.com/x', 'https://example.com/x'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['http://example.com:80/', 'http://example.com/'],
    ['example.com:443/pricing', 'https://example.com/pricing'],
    ['https://Example.COM./Path?q=1#frag', 'https://example.com/Path?q=1'],
    ['https://www.example.co.uk/#top', 'https://www.example.co.uk/'],
    ['https://bücher.de/', 'https://xn--bcher-kva.de/'],
    ['HTTP://EXAMPLE.ORG/A', 'http://example.org/A'],
    ['https://my_host.example.com/', 'https://my_host.example.com/'],
    ['https://localhost.example.com/', 'https://localhost.example.com/'],
  ])('%s -> %s', (input, expected) => {
    const url = normalizeTargetUrl(input, { allowHosts: [] });
    expect(url).toBeInstanceOf(URL);
    expect(url.href).toBe(expected);
  });

  it('accepts exactly 2000 characters and refuses 2001', () => {
    const base = 'https://example.com/';
    const ok = base + 'a'.repeat(2000 - base.length);
    expect(normalizeTargetUrl(ok, { allowHosts: [] }).href).toBe(ok);
    expect(refusal(ok + 'a').message).toMatch(/2000/);
  });
});

describe('normalizeTargetUrl refuses', () => {
  it.each([
    // IP literals in every spelling WHATWG accepts, all normalised to dotted form before the check.
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://017700000001/',
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0/',
    'http://0.0.0.0/',
    '127.0.0.1/admin',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://8.8.8.8/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[2001:4860:4860::8888]/',
    'https://127.0.0.1./',
    'http://0x7f.0x0.0x0.0x1/',
    'http://%31%32%37.0.0.1/',
  ])('IP literal %s', (input) => {
    expect(refusal(input).message).toMatch(/IP address/);
  });

  it.each([
    'http://localhost/',
    'LOCALHOST.',
    'http://localhost./',
    'http://%6c%6f%63%61%6c%68%6f%73%74/',
    'http://LocalHost%2e/',
    'https://localhost\u3002/',
    'http://app.localhost/',
    'http://printer.local/',
    'http://db.internal/',
    'http://metadata.google.internal/',
    'http://router.lan/',
    'http://nas.home.arpa/',
    'http://1.0.0.127.in-addr.arpa/',
    'http://intranet.corp/',
    'http://wiki.intranet/',
    'http://box.localdomain/',
    'http://server.home/',
    'http://site.test/',
    'http://www.example/',
    'http://x.invalid/',
    'http://abc.onion/',
    'http://intranet/',
    'http://server/',
    'https://wiki/',
  ])('internal name %s', (input) => {
    expect(refusal(input).message).toMatch(/Internal or reserved/);
  });

  it.each([
    'https://example.com:8080/',
    'https://example.com:80/',
    'http://example.com:443/',
    'example.com:6379',
    'http://example.com:22/',
    'https://example.com:0/',
  ])('non-default port %s', (input) => {
    expect(refusal(input).message).toMatch(/default port/);
  });

  it.each([
    'ftp://example.com/',
    'file:///etc/passwd',
    'file:/etc/passwd',
    'javascript:alert(1)',
    'data:text/html,hello',
    'gopher://example.com/',
    'ws://example.com/',
    'wss://example.com/',
    'mailto:someone@example.com',
  ])('scheme %s', (input) => {
    expect(refusal(input).message).toMatch(/http:\/\/ and https:\/\//);
  });

  it.each(['https://user:pass@example.com/', 'https://user@example.com/', 'https://:secret@example.com/'])(
    'credentials %s',
    (input) => {
      expect(refusal(input).message).toMatch(/user name or password/);
    },
  );

  it.each(['', '   ', 'https://', 'http://exa mple.com/', 'https://example..com/', 'https://-bad.example.com/', 'https://a*b.example.com/', 'user:pass@example.com'])(
    'malformed %j',
    (input) => {
      const err = refusal(input);
      expect(err.problem.status).toBe(400);
      expect(err.problem.type).toMatch(/invalid-url$/);
    },
  );

  it('carries the invalid-url problem with a plain reason', () => {
    const err = refusal('http://localhost:3000/');
    expect(err.problem).toMatchObject({ status: 400, title: 'The address cannot be checked' });
    expect(err.problem.detail).toBe(err.message);
  });
});

describe('hosts from the host map', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('relaxes only the internal-name rule, only for mapped hosts', () => {
    const allowHosts = ['site.test'];
    expect(normalizeTargetUrl('https://site.test/a#b', { allowHosts }).href).toBe('https://site.test/a');
    expect(normalizeTargetUrl('site.test', { allowHosts }).href).toBe('https://site.test/');
    expect(refusal('https://other.test/', allowHosts).message).toMatch(/Internal or reserved/);
    expect(refusal('https://site.test:8080/', allowHosts).message).toMatch(/default port/);
    expect(refusal('https://u:p@site.test/', allowHosts).message).toMatch(/user name or password/);
    expect(refusal('ftp://site.test/', allowHosts).message).toMatch(/http:\/\//);
  });

  it('reads CHECK_HOST_MAP at call time, and ignores it in production', () => {
    vi.stubEnv('NODE_ENV', 'test');
    vi.stubEnv('CHECK_HOST_MAP', 'site.test=127.0.0.1:4000');
    expect(normalizeTargetUrl('https://site.test/').href).toBe('https://site.test/');
    vi.stubEnv('CHECK_HOST_MAP', '');
    expect(() => normalizeTargetUrl('https://site.test/')).toThrow(InvalidTargetUrl);
    vi.stubEnv('CHECK_HOST_MAP', 'site.test=127.0.0.1:4000');
    vi.stubEnv('NODE_ENV', 'production');
    expect(() => normalizeTargetUrl('https://site.test/')).toThrow(InvalidTargetUrl);
  });
});
