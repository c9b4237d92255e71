import { describe, expect, it } from 'vitest';
import { hashKey, isWellFormedKey, maskKey, mintKey, digestsEqual, KEY_PREFIX } from '@/lib/credits/keys';
import { bundleExpiry, monthlyPeriodEnd, PLANS } from '@/lib/credits/plans';
import { parseConfig, ConfigError } from '@/lib/config';
import { scrubSecrets } from '@/lib/log';

describe('credits keys', () => {
  it('mints pac_live_ keys with 40 base62 characters, all different', () => {
    const keys = Array.from({ length: 200 }, mintKey);
    for (const k of keys) {
      expect(k.startsWith(KEY_PREFIX)).toBe(true);
      expect(k.slice(KEY_PREFIX.length)).toMatch(/^[0-9A-Za-z]{40}$/);
      expect(isWellFormedKey(k)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('stores an HMAC that depends on the secret, never the key', () => {
    const k = mintKey();
    const h = hashKey(k, 's'.repeat(32));
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).not.toContain(k.slice(KEY_PREFIX.length));
    expect(hashKey(k, 't'.repeat(32))).not.toBe(h);
    expect(digestsEqual(h, hashKey(k, 's'.repeat(32)))).toBe(true);
    expect(digestsEqual(h, hashKey(mintKey(), 's'.repeat(32)))).toBe(false);
  });

  it('shows only the prefix and last 4 characters', () => {
    const k = mintKey();
    expect(maskKey(k)).toBe(`pac_live_…${k.slice(-4)}`);
  });

  it('rejects malformed keys', () => {
    for (const bad of ['', 'pac_live_short', 'pac_test_' + 'a'.repeat(40), 'pac_live_' + 'a'.repeat(39) + '!']) expect(isWellFormedKey(bad)).toBe(false);
  });

  it('scrubs keys and credentials from log lines', () => {
    const k = mintKey();
    const line = scrubSecrets(`{"auth":"Bearer ${k}","other":"Payment eyJhbGciOi.abcdefgh"}`);
    expect(line).not.toContain(k.slice(9));
    expect(line).not.toContain('eyJhbGciOi');
  });
});

describe('plans', () => {
  it('match spec 2.4', () => {
    expect(PLANS.map((p) => [p.id, p.calls, p.priceCents, p.validity])).toEqual([
      ['bundle-25', 25, 2000, '12 months'], ['bundle-100', 100, 7000, '12 months'], ['subscription', 50, 2900, 'monthly'],
    ]);
  });
  it('bundles last 12 calendar months, subscription periods one', () => {
    const t = Date.UTC(2026, 0, 31, 12);
    expect(new Date(bundleExpiry(t)).toISOString()).toBe('2027-01-31T12:00:00.000Z');
    expect(new Date(monthlyPeriodEnd(Date.UTC(2026, 10, 22))).toISOString()).toBe('2026-12-22T00:00:00.000Z');
  });
});

describe('configuration', () => {
  it('names every bad variable in one error', () => {
    try {
      parseConfig({ NODE_ENV: 'production', APP_URL: 'not a url', PAY_TO_ADDRESS: '0x123', RATE_LIMIT_PER_IP: '-1' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const msg = (e as Error).message;
      expect(msg).toMatch(/APP_URL/);
      expect(msg).toMatch(/PAY_TO_ADDRESS/);
      expect(msg).toMatch(/RATE_LIMIT_PER_IP/);
    }
  });
  it('requires CREDITS_KEY_SECRET and refuses CHECK_HOST_MAP in production', () => {
    expect(() => parseConfig({ NODE_ENV: 'production' })).toThrow(/CREDITS_KEY_SECRET: required in production/);
    expect(() => parseConfig({ NODE_ENV: 'production', CREDITS_KEY_SECRET: 'x'.repeat(32), CHECK_HOST_MAP: 'a.test=127.0.0.1:1' })).toThrow(/CHECK_HOST_MAP/);
  });
  it('picks the store from the environment', () => {
    const base = { CREDITS_KEY_SECRET: 'x'.repeat(32) };
    expect(parseConfig(base).storeKind).toBe('sqlite');
    expect(parseConfig({ ...base, REDIS_URL: 'redis://127.0.0.1:6379' }).storeKind).toBe('redis');
    expect(parseConfig({ ...base, KV_REST_API_URL: 'https://kv.example', KV_REST_API_TOKEN: 't' }).storeKind).toBe('vercel-kv');
    expect(() => parseConfig({ ...base, KV_REST_API_URL: 'https://kv.example' })).toThrow(/KV_REST_API_TOKEN/);
  });
});
