// One JSON line per event on stdout. Callers pass masked identifiers only; as a second guard,
// anything shaped like a secret we hold or handle is masked here before it is written.

// Transaction hashes and EIP-3009 nonces have the same shape as a private key (0x + 64 hex) but are
// public on-chain identifiers that the audit trail needs, so they are kept under these field names only.
const PUBLIC_HASH_FIELDS = ['paymentIntent', 'transaction', 'txHash', 'nonce'];

const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/pac_live_[0-9A-Za-z]{4,}/g, 'pac_live_…'],
  [/(Payment|Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 …'],
  // Stripe secret and restricted keys (sk_live_…, rk_test_…), webhook signing secrets, shared payment tokens.
  [/\b([sr]k_[a-z]+)_[0-9A-Za-z]{8,}/g, '$1_…'],
  [/\bwhsec_[0-9A-Za-z+/=]{8,}/g, 'whsec_…'],
  [/\bspt_[0-9A-Za-z]{8,}/g, 'spt_…'],
  // A 32-byte private key; longer hex (signatures, calldata) is not this shape and is left alone.
  [new RegExp(`(?<!"(?:${PUBLIC_HASH_FIELDS.join('|')})":")\\b0x[0-9a-fA-F]{64}(?![0-9a-fA-F])`, 'g'), '0x…'],
];

/**
 * Masks anything shaped like a credits key, payment credential, Stripe secret or private key.
 * @example scrubSecrets('{"k":"sk_test_51Habcdefgh"}') // '{"k":"sk_test_…"}'
 */
export function scrubSecrets(text: string): string {
  return SECRET_SHAPES.reduce((t, [re, mask]) => t.replace(re, mask), text);
}

export function logEvent(event: Record<string, unknown>): void {
  if (process.env.LOG_LEVEL === 'silent') return;
  process.stdout.write(scrubSecrets(JSON.stringify({ t: new Date().toISOString(), ...event })) + '\n');
}
