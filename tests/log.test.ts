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

afterEach(() => vi.unstubAllEnvs());

describe('log scrubbing (G7)', () => {
  const secrets = {
    'credits key': mintKey(),
    'Stripe live secret key': `sk_live_${base62(99)}`,
    'Stripe test secret key': `sk_test_${base62(99)}`,
    'Stripe restricted key': `rk_live_${base62(99)}`,
    'webhook signing secret': `whsec_${base62(32)}`,
    'shared payment token': `spt_${hex(12)}`,
    'EVM private key': `0x${hex(32)}`,
  };

  for (const [kind, secret] of Object.entries(secrets)) {
    it(`masks a ${kind} wherever it appears in an event`, () => {
      vi.stubEnv('LOG_LEVEL', 'info');
      const line = logged({
        event: 'internal-error',
        error: `request failed with ${secret} in it`,
        detail: secret,
        nested: { list: [`prefix:${secret}`, `${secret},suffix`] },
      });
      const secretPart = secret.slice(secret.length - 24);
      expect(line).not.toContain(secretPart);
      expect(JSON.parse(line)).toMatchObject({ event: 'internal-error', error: expect.stringContaining('…') });
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
