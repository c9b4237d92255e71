import { afterEach, describe, expect, it, vi } from 'vitest';
import crypto from 'node:crypto';
import { logEvent } from '@/lib/log';
import { mintKey } from '@/lib/credits/keys';

// What reaches stdout through logEvent, the one writer of log lines (runtime.log uses it).
function logged(event: Record<string, unknown>): string {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
  try {
    logEvent(event);
  } finally {
    write.mockRestore();
  }
  expect(lines).toHaveLength(1);
  return lines[0];
}

const hex = (bytes: number) => crypto.randomBytes(bytes).toString('hex');
const base62 = (n: number) => crypto.randomBytes(n * 2).toString('base64').replace(/[^0-9A-Za-z]/g, '').slice(0, n);

/**
 * Fails when any 8 characters in a row of `secret` (every window, so the whole of it) reach `line`, as
 * written or once the JSON is read back; nor may its base64 or base64url form.
 */
function expectNoPartOf(secret: string, line: string) {
  expect(secret.length).toBeGreaterThanOrEqual(8);
  const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);
  const decoded = strings(JSON.parse(line)).join('\n');
  const windows = Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));
  expect(windows.filter((w) => line.includes(w) || decoded.includes(w))).toEqual([]);
  for (const encoded of [Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url')]) expect(line).not.toContain(encoded.slice(0, 12));
}

afterEach(() => vi.unstubAllEnvs());

describe('log scrubbing', () => {
  // Each secret with the public prefix that names its kind: the prefix may stay in the line (it says what was
  // masked), nothing after it may.
  const secrets: Record<string, { prefix: string; secret: string }> = {
    'credits key': { prefix: 'pac_live_', secret: mintKey() },
    'Stripe live secret key': { prefix: 'sk_live_', secret: `sk_live_${base62(99)}` },
    'Stripe test secret key': { prefix: 'sk_test_', secret: `sk_test_${base62(99)}` },
    'Stripe restricted key': { prefix: 'rk_live_', secret: `rk_live_${base62(99)}` },
    'webhook signing secret': { prefix: 'whsec_', secret: `whsec_${base62(32)}` },
    'shared payment token': { prefix: 'spt_', secret: `spt_${hex(12)}` },
    'EVM private key': { prefix: '0x', secret: `0x${hex(32)}` },
  };

  for (const [kind, { prefix, secret }] of Object.entries(secrets)) {
    it(`masks a ${kind} wherever it appears in an event`, () => {
      vi.stubEnv('LOG_LEVEL', 'info');
      expect(secret.startsWith(prefix)).toBe(true);
      const line = logged({
        event: 'internal-error',
        error: `request failed with ${secret} in it`,
        detail: secret,
        nested: { list: [`prefix:${secret}`, `${secret},suffix`] },
      });
      expect(JSON.parse(line)).toMatchObject({ event: 'internal-error', error: expect.stringContaining('…') });
      expectNoPartOf(secret.slice(prefix.length), line);
    });
  }

  it('keeps public on-chain identifiers (transaction hashes, nonces) and longer hex such as signatures', () => {
    vi.stubEnv('LOG_LEVEL', 'info');
    const txHash = `0x${hex(32)}`;
    const nonce = `0x${hex(32)}`;
    const signature = `0x${hex(65)}`;
    const parsed = JSON.parse(logged({ event: 'fulfilled', paymentIntent: txHash, nonce, signature }));
    expect(parsed).toMatchObject({ paymentIntent: txHash, nonce, signature });
  });
});
