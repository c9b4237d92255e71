// CHECK_HOST_MAP is read and refused in one place (lib/outbound/host-map.ts). The startup
// refusal is proven end to end by tests/system/secrets.test.ts; safeFetch's and normalizeTargetUrl's
// by their own tests.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HostMapInProductionError, parseHostMap, resolveHostMap } from '@/lib/outbound/host-map';
import { parseConfig } from '@/lib/config';
import { checkVisibility, SiteUnreachable } from '@/lib/checks/visibility/check';
import { normalizeTargetUrl } from '@/lib/outbound/target-url';
import { serveWebHandler } from '../support/web-server';

describe('parseHostMap', () => {
  it('parses host=ip:port lists, IPv6 in brackets', () => {
    const map = parseHostMap(' site.test=127.0.0.1:4000, WWW.Site.Test.=[::1]:4001 ,');
    expect([...map]).toEqual([
      ['site.test', { address: '127.0.0.1', port: 4000 }],
      ['www.site.test', { address: '::1', port: 4001 }],
    ]);
    expect(parseHostMap(undefined).size).toBe(0);
    expect(parseHostMap('').size).toBe(0);
  });

  it('keeps the scheme an entry was given: http:// marks a server that speaks plain HTTP only', () => {
    expect([...parseHostMap('shop.test=http://127.0.0.1:8081,site.test=127.0.0.1:4000')]).toEqual([
      ['shop.test', { address: '127.0.0.1', port: 8081, scheme: 'http' }],
      ['site.test', { address: '127.0.0.1', port: 4000 }],
    ]);
  });

  it.each(['site.test', 'site.test=127.0.0.1', 'site.test=https://127.0.0.1:4000', 'site.test=localhost:80', '127.0.0.1=127.0.0.1:80', 'site.test=127.0.0.1:70000', 'a b=127.0.0.1:1'])(
    'refuses %j',
    (value) => {
      expect(() => parseHostMap(value)).toThrow(/CHECK_HOST_MAP/);
    },
  );
});

describe('resolveHostMap: CHECK_HOST_MAP in production', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('refuses a host map when NODE_ENV is production', () => {
    expect(() => resolveHostMap(undefined, { NODE_ENV: 'production', CHECK_HOST_MAP: 'site.test=127.0.0.1:4000' })).toThrow(
      /CHECK_HOST_MAP.*production/,
    );
    expect(() => resolveHostMap(undefined, { NODE_ENV: 'production' })).not.toThrow();
    expect(() => resolveHostMap(undefined, { NODE_ENV: 'production', CHECK_HOST_MAP: '' })).not.toThrow();
    expect(() => resolveHostMap(undefined, { NODE_ENV: 'test', CHECK_HOST_MAP: 'site.test=127.0.0.1:4000' })).not.toThrow();
  });

  it('refuses an override too, in string or parsed form, and before parsing a malformed one', () => {
    const production = { NODE_ENV: 'production' };
    expect(() => resolveHostMap('site.test=127.0.0.1:4000', production)).toThrow(HostMapInProductionError);
    expect(() => resolveHostMap(parseHostMap('site.test=127.0.0.1:4000'), production)).toThrow(HostMapInProductionError);
    expect(() => resolveHostMap('not a map', production)).toThrow(HostMapInProductionError);
    expect(resolveHostMap(new Map(), production).size).toBe(0);
  });

  it('takes the override over CHECK_HOST_MAP outside production', () => {
    const env = { NODE_ENV: 'test', CHECK_HOST_MAP: 'site.test=127.0.0.1:4000' };
    expect([...resolveHostMap(undefined, env).keys()]).toEqual(['site.test']);
    expect([...resolveHostMap('other.test=127.0.0.1:5000', env).keys()]).toEqual(['other.test']);
  });

  it('reads process.env by default', () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('CHECK_HOST_MAP', 'site.test=127.0.0.1:4000');
    expect(() => resolveHostMap()).toThrow(/CHECK_HOST_MAP/);
  });

  it('is what the configuration check refuses at startup', () => {
    const env = { NODE_ENV: 'production', CREDITS_KEY_SECRET: 'x'.repeat(32) };
    expect(() => parseConfig({ ...env, CHECK_HOST_MAP: 'a.test=127.0.0.1:1' })).toThrow(/CHECK_HOST_MAP: test-only setting, refused in production/);
    expect(() => parseConfig({ ...env, CHECK_HOST_MAP: '  ' })).not.toThrow();
  });

  it('is what the check refuses, before any request, when CHECK_HOST_MAP is set in production', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('CHECK_HOST_MAP', 'site.test=127.0.0.1:9');
    await expect(checkVisibility('https://site.test/')).rejects.toThrow(HostMapInProductionError);
  });
});

describe('checking a local site in development', () => {
  it('a non-default port is refused with the way to check it: a name in the host map', () => {
    expect(() => normalizeTargetUrl('http://localhost:8081/')).toThrow(
      'Only the default port can be checked (80 for http, 443 for https). To check a site on another port in development, give it a name in CHECK_HOST_MAP (for example shop.test=http://127.0.0.1:8081) and check http://shop.test/; /docs/self-hosting#local-sites says how.',
    );
  });

  it('a plain-HTTP server mapped with http:// is reported without HTTPS, and its https:// address fails as it would for real', async () => {
    const server = await serveWebHandler(async () => new Response('<!doctype html><html lang="en"><head><title>Local shop</title></head><body><h1>Local shop</h1></body></html>', { headers: { 'content-type': 'text/html' } }));
    try {
      const hostMap = `shop.test=http://127.0.0.1:${new URL(server.url).port}`;
      const { report } = await checkVisibility('http://shop.test/', { hostMap });
      expect(report.status).toBe(200);
      expect(report.site.https).toEqual({ finalUrlHttps: false, httpRedirectsToHttps: false });
      const refused = await checkVisibility('https://shop.test/', { hostMap }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SiteUnreachable);
      expect((refused as SiteUnreachable).message).toContain('shop.test is mapped to a server that speaks plain HTTP only, so it has no HTTPS; check http://shop.test/ instead.');
    } finally {
      await server.close();
    }
  });
});
