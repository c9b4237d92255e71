import crypto from 'node:crypto';

// A credits key is `pac_live_` + 40 base62 characters (~238 bits). Only an HMAC-SHA256 of the
// key under CREDITS_KEY_SECRET is stored, so a copy of the store alone cannot be used to spend.

export const KEY_PREFIX = 'pac_live_';
const SECRET_LENGTH = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^pac_live_[0-9A-Za-z]{32,64}$/;

export function mintKey(): string {
  let out = '';
  // Rejection sampling keeps every base62 character equally likely.
  while (out.length < SECRET_LENGTH) {
    for (const byte of crypto.randomBytes(SECRET_LENGTH)) {
      if (byte < 248 && out.length < SECRET_LENGTH) out += BASE62[byte % 62];
    }
  }
  return KEY_PREFIX + out;
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function hashKey(key: string, secret: string): string {
  return crypto.createHmac('sha256', secret).update(key).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** How a key is shown wherever it must be identified: never more than its last 4 characters. */
export function maskKey(key: string): string {
  return `${KEY_PREFIX}…${key.slice(-4)}`;
}
