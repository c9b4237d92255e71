// Sign-In-With-X for wallet payers: a wallet that paid a check (MPP evm or x402) reads its stored reports by
// signing a CAIP-122 (SIWE) message for this origin and sending it base64-encoded in the SIGN-IN-WITH-X
// header. @x402/extensions parses the header, checks domain, URI origin and time bounds, and recovers the
// signer with viem (EOAs); the nonce is spent here, once, in the store, so a captured header is good once.
import crypto from 'node:crypto';
import { SIGN_IN_WITH_X, buildSIWxSchema, parseSIWxHeader, validateSIWxMessage, verifySIWxSignature } from '@x402/extensions/sign-in-with-x';
import type { Store } from '@/lib/store';
import { sha256Hex } from '@/lib/canonical-json';
import { ProblemError } from '@/lib/problems';
import { walletOwner } from '@/lib/reports/store';
import { BASE_CHAIN_ID } from '@/lib/payments/config';

/** The request header carrying the signed message (base64 JSON), as the x402 extension names it. */
export const SIWX_HEADER = SIGN_IN_WITH_X.toUpperCase();

/** The one chain we sign in on: the chain our USDC is paid on. */
const SIWX_CHAIN = `eip155:${BASE_CHAIN_ID}`;
/** How old a signed message may be (issuedAt), and how long an offered challenge stays good. */
const SIWX_MAX_AGE_MS = 5 * 60 * 1000;
/**
 * How long a spent nonce is remembered: past the message's maximum age (plus a minute for clocks) it is
 * refused for its age anyway, so the store never has to remember it longer.
 */
const NONCE_TTL_MS = SIWX_MAX_AGE_MS + 60 * 1000;
const STATEMENT = 'Sign in to read the reports this wallet paid for.';

const refused = (detail: string, extensions: Record<string, unknown> = {}) =>
  new ProblemError('wallet-sign-in-refused', `${detail} Sign a fresh message (a new nonce) and send it in the ${SIWX_HEADER} header.`, extensions);

/**
 * The wallet a SIGN-IN-WITH-X header proves, as the owner its reports are filed under; throws a 401 problem
 * for a header that does not parse, names another origin, is too old, expired or not yet valid, carries a
 * nonce already spent, names another chain, or whose signature is not the address's.
 * @example const owner = await walletFromHeader(store, request.headers.get('sign-in-with-x')!, config.APP_URL);
 */
export async function walletFromHeader(store: Store, header: string, appUrl: string): Promise<string> {
  let payload;
  try {
    payload = parseSIWxHeader(header.trim());
  } catch {
    throw refused(`The ${SIWX_HEADER} header is not a base64 JSON sign-in message.`);
  }
  if (payload.chainId !== SIWX_CHAIN) throw refused(`Sign in on ${SIWX_CHAIN}, the chain payments are made on.`);
  // Every check but the nonce first: a message refused for another reason does not spend its nonce.
  const bounds = await validateSIWxMessage(payload, new URL(appUrl), { maxAge: SIWX_MAX_AGE_MS });
  if (!bounds.isValid) throw refused(`${bounds.invalidMessage}.`, { reason: bounds.invalidReason });
  const signature = await verifySIWxSignature(payload);
  if (!signature.isValid) throw refused('The signature is not the address\'s.', { reason: signature.invalidReason });
  const fresh = await store.claimOnce(`siwx-nonce:${sha256Hex(payload.nonce)}`, Date.now(), NONCE_TTL_MS);
  if (!fresh) throw refused('This nonce was already used.', { reason: 'invalid_siwx_nonce' });
  return walletOwner(signature.payer);
}

/**
 * What a caller needs to sign in with a wallet, in the x402 `sign-in-with-x` extension's shape: the message's
 * fields (a fresh nonce, issued now, good for five minutes), the chain, and the JSON Schema of the header.
 * @example problem('not-signed-in', '…', { extensions: siwxChallenge('https://example.com', '/api/reports') })
 */
export function siwxChallenge(appUrl: string, path: string, now = Date.now()): Record<string, unknown> {
  const origin = new URL(appUrl);
  const uri = new URL(path, origin).toString();
  return {
    [SIGN_IN_WITH_X]: {
      info: {
        domain: origin.host,
        uri,
        statement: STATEMENT,
        version: '1',
        nonce: crypto.randomBytes(16).toString('hex'),
        issuedAt: new Date(now).toISOString(),
        expirationTime: new Date(now + SIWX_MAX_AGE_MS).toISOString(),
        resources: [uri],
      },
      supportedChains: [{ chainId: SIWX_CHAIN, type: 'eip191' }],
      schema: buildSIWxSchema(),
    },
  };
}
