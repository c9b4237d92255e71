// The in-memory CredentialClaims used by tests and single-process dev; the store's adapters must behave alike.
import { describe, expect, it } from 'vitest';
import { memoryCredentialClaims } from '../../lib/payments/claims';

describe('memoryCredentialClaims', () => {
  it('grants a key once until it expires', async () => {
    let now = 1_000_000;
    const claims = memoryCredentialClaims(() => now);
    expect(await claims.claimOnce('pay:evm:a', 60)).toBe(true);
    expect(await claims.claimOnce('pay:evm:a', 60)).toBe(false);
    expect(await claims.claimOnce('pay:evm:b', 60)).toBe(true);
    now += 59_999;
    expect(await claims.claimOnce('pay:evm:a', 60)).toBe(false);
    now += 1;
    expect(await claims.claimOnce('pay:evm:a', 60)).toBe(true);
  });

  it('grants exactly one of many simultaneous claims', async () => {
    const claims = memoryCredentialClaims();
    const results = await Promise.all(Array.from({ length: 20 }, () => claims.claimOnce('k', 60)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
