// "Credential seen" markers: each payment credential may reach settlement once, across every process.
// The service's store implements CredentialClaims atomically (SET NX EX in Redis, INSERT OR IGNORE with an
// expiry column in SQLite); memoryCredentialClaims() is the single-process implementation for tests and dev.

export interface CredentialClaims {
  /**
   * Atomically records `key` for `ttlSeconds` and returns true if it was not already recorded (the caller
   * owns the credential), false if it was (a replay or a concurrent duplicate).
   */
  claimOnce(key: string, ttlSeconds: number): Promise<boolean>;
}

export function memoryCredentialClaims(now: () => number = Date.now): CredentialClaims {
  const seen = new Map<string, number>();
  return {
    async claimOnce(key, ttlSeconds) {
      const t = now();
      if (seen.size > 10_000) for (const [k, expiry] of seen) if (expiry <= t) seen.delete(k);
      const expiry = seen.get(key);
      if (expiry !== undefined && expiry > t) return false;
      seen.set(key, t + ttlSeconds * 1000);
      return true;
    },
  };
}

/**
 * The store's atomic claim (`claimOnce(key, now, ttlMs)`) as the CredentialClaims the rails use.
 * @example createPaymentRails(config, { claims: storeCredentialClaims(store) })
 */
export function storeCredentialClaims(store: { claimOnce(key: string, now: number, ttlMs: number): Promise<boolean> }): CredentialClaims {
  return { claimOnce: (key, ttlSeconds) => store.claimOnce(key, Date.now(), ttlSeconds * 1000) };
}
