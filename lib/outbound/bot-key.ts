// The Web Bot Auth key's parsing, apart from the signer (web-bot-auth.ts) so the configuration can check a key
// at startup without loading the signing libraries.

import crypto from 'node:crypto';

/** Why a WEB_BOT_AUTH_KEY is refused; never quotes the value. */
export class BotKeyError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BotKeyError';
  }
}

/**
 * An Ed25519 private key from its JWK (JSON) or PKCS#8 PEM text, as Node's KeyObject.
 * @throws BotKeyError naming what is wrong, never the key.
 * @example parsePrivateKey('{"kty":"OKP","crv":"Ed25519","x":"…","d":"…"}').asymmetricKeyType // 'ed25519'
 */
export function parsePrivateKey(text: string): crypto.KeyObject {
  const trimmed = text.trim();
  let key: crypto.KeyObject;
  try {
    key = trimmed.startsWith('{')
      ? crypto.createPrivateKey({ key: JSON.parse(trimmed) as crypto.JsonWebKey, format: 'jwk' })
      : crypto.createPrivateKey({ key: trimmed.replace(/\\n/g, '\n'), format: 'pem' });
  } catch {
    throw new BotKeyError('must be an Ed25519 private key, as a JWK (with "d") or a PKCS#8 PEM');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new BotKeyError(`must be an Ed25519 key (Web Bot Auth verifiers such as Cloudflare accept only Ed25519), not ${key.asymmetricKeyType}`);
  return key;
}

