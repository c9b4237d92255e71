// Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol): the service signs the requests it sends under its own
// user agent with RFC 9421 HTTP Message Signatures, so a site can tell this checker from anyone borrowing its
// name. The signing itself is mppx's Web Bot Auth signer: it writes `Signature-Agent` in the dictionary form the
// WG draft requires of signers (`sig="https://…"`, with that member covered), which the `web-bot-auth` package
// does not yet publish. The key directory's own response signature (tag `http-message-signatures-directory`) is
// `web-bot-auth`'s `directoryResponseHeaders`.
//
// The key is WEB_BOT_AUTH_KEY: an Ed25519 private key as a JWK or a PKCS#8 PEM. It is parsed here and nowhere
// else, and no message of this module ever carries it.

import crypto from 'node:crypto';
import { Client } from 'mppx/attestation/web-bot-auth';
import { directoryResponseHeaders, jwkToKeyID, helpers } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { BotKeyError, parsePrivateKey } from './bot-key';

/** Where the service publishes its public keys, on its own origin (the draft's well-known path). */
export const SIGNATURES_DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
/** The directory's media type (the draft's IANA registration). */
export const SIGNATURES_DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';
/** The `Signature-Agent` dictionary member (and signature label) our requests carry. */
const SIGNATURE_LABEL = 'sig1';
/**
 * How long one request signature is valid. Short, as Cloudflare recommends: a request is sent the moment it is
 * signed, and a captured one is of no use to anyone for long.
 */
const SIGNATURE_LIFETIME_SECONDS = 60;
/**
 * How long the directory may be cached, and so how long its own signature stays valid: a verifier that keeps
 * the directory for a day keeps a signature that holds as long (the draft suggests a day).
 */
export const DIRECTORY_MAX_AGE_SECONDS = 24 * 60 * 60;

/** The service's signing identity: the private key stays inside the signer; only public parts are exposed. */
export interface BotIdentity {
  /** RFC 7638 JWK thumbprint of the public key: the `keyid` of every signature. */
  keyId: string;
  /** The public key as a JWK (kty, crv, x, kid), as the directory publishes it. */
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string };
  /** The origin `Signature-Agent` names: where the directory is served. */
  agentOrigin: string;
  /** The `Signature`, `Signature-Input` and `Signature-Agent` headers for one request. */
  signRequest(url: URL, method: string): Promise<Record<string, string>>;
  /** The `Signature` and `Signature-Input` headers of the directory response to `request`. */
  signDirectory(request: { method: string; url: string; headers: Headers }, response: { status: number; headers: Headers }): Promise<Record<string, string>>;
}

/**
 * The signing identity for a key and the service's public origin.
 * @throws BotKeyError when the key is not an Ed25519 private key or the origin is not https (the draft's
 *   `Signature-Agent` names an https origin).
 * @example const id = await createBotIdentity(process.env.WEB_BOT_AUTH_KEY!, 'https://checks.example');
 *   await id.signRequest(new URL('https://site.example/'), 'GET') // { signature, 'signature-input', 'signature-agent' }
 */
export async function createBotIdentity(keyText: string, appUrl: string): Promise<BotIdentity> {
  const key = parsePrivateKey(keyText);
  const privateJwk = key.export({ format: 'jwk' });
  const { x } = crypto.createPublicKey(key).export({ format: 'jwk' });
  if (!x) throw new BotKeyError('must be an Ed25519 key');
  const keyId = await jwkToKeyID({ kty: 'OKP', crv: 'Ed25519', x }, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
  const agentOrigin = new URL(appUrl).origin;
  if (!agentOrigin.startsWith('https://')) throw new BotKeyError(`is set, but APP_URL (${agentOrigin}) is not https: Signature-Agent must name an https origin`);
  const privateKey = await crypto.subtle.importKey('jwk', privateJwk, { name: 'Ed25519' }, false, ['sign']);
  const signer = Client.signer({ key: privateKey, keyId, signatureAgent: agentOrigin, label: SIGNATURE_LABEL, expiresIn: SIGNATURE_LIFETIME_SECONDS });
  // web-bot-auth's signer is built from the JWK; kept beside mppx's so the one key answers both roles.
  const directorySigner = await signerFromJWK(privateJwk as JsonWebKey);

  return {
    keyId,
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x, kid: keyId },
    agentOrigin,
    async signRequest(url, method) {
      const signed = await signer.sign(new Request(url, { method }));
      const out: Record<string, string> = {};
      for (const name of ['signature', 'signature-input', 'signature-agent']) out[name] = signed.headers.get(name)!;
      return out;
    },
    async signDirectory(request, response) {
      const created = new Date();
      const expires = new Date(created.getTime() + DIRECTORY_MAX_AGE_SECONDS * 1000);
      const headers = await directoryResponseHeaders({ request, response }, [directorySigner], { created, expires });
      return { signature: headers.Signature, 'signature-input': headers['Signature-Input'] };
    },
  };
}

let cached: { keyText: string; appUrl: string; identity: Promise<BotIdentity | null> } | undefined;

/**
 * The process's identity from WEB_BOT_AUTH_KEY and APP_URL, or null when no key is set. Startup has already
 * refused a bad key (lib/config.ts), so a key that fails here is treated as none rather than failing a request.
 * @example const identity = await processBotIdentity(); identity?.keyId // 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U'
 */
export function processBotIdentity(env: Record<string, string | undefined> = process.env): Promise<BotIdentity | null> {
  const keyText = env.WEB_BOT_AUTH_KEY?.trim() ?? '';
  const appUrl = env.APP_URL?.trim() || 'http://localhost:3000';
  if (cached && cached.keyText === keyText && cached.appUrl === appUrl) return cached.identity;
  const identity = keyText === '' ? Promise.resolve(null) : createBotIdentity(keyText, appUrl).catch(() => null);
  cached = { keyText, appUrl, identity };
  return identity;
}
