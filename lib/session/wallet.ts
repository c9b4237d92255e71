// Sign-In-With-X for wallet payers: a wallet that paid a check (MPP evm or x402) reads its stored reports, and makes
// or stops their public links, by signing a CAIP-122 (SIWE) message and sending it base64-encoded in the
// SIGN-IN-WITH-X header. @x402/extensions parses the header, checks domain, URI origin and time bounds, and
// recovers the signer with viem (EOAs). On top of that, a message signs in ONE request, and says which:
//   - its `uri` is that request's URL without the query (APP_URL's origin + path), its `resources` exactly [uri],
//     and its `statement` `<what the request does>: <METHOD> <path>`, exactly as the service wrote them;
//   - its `nonce` is one this service issued for that method and path (the 401 of a request without credentials
//     carries it, in the message to sign), kept in the store for 6 minutes and spent in one step on first use.
// So a message signed to read reports never shares or unshares one, and a nonce the client chose is worth nothing.
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
 * How long an issued nonce waits for its message: past the message's maximum age (plus a minute for clocks) the
 * message is refused for its age anyway, so the store never has to keep it longer.
 */
const NONCE_TTL_MS = SIWX_MAX_AGE_MS + 60 * 1000;

/** The one request a message signs in for, and what that request does, in the words its statement opens with. */
interface SignedRequest {
  method: string;
  /** The URL's path, without the query. */
  path: string;
  /** e.g. 'Read the reports this wallet paid for' */
  purpose: string;
}

/** What a message for `request` must say, field by field: its uri, statement and resources. */
function boundTo(appUrl: string, request: SignedRequest) {
  const uri = new URL(request.path, new URL(appUrl).origin).toString();
  return { uri, statement: `${request.purpose}: ${request.method} ${request.path}`, resources: [uri] };
}

const issuedNonce = (nonce: string) => `siwx-nonce-issued:${sha256Hex(nonce)}`;

const refused = (detail: string, extensions: Record<string, unknown> = {}) =>
  new ProblemError(
    'wallet-sign-in-refused',
    `${detail} Send this request without credentials for a fresh message (a nonce issued for it), sign it as it stands and send it base64 in the ${SIWX_HEADER} header.`,
    extensions,
  );

/**
 * The wallet a SIGN-IN-WITH-X header proves for `request`, as the owner its reports are filed under; throws a
 * 401 problem for a header that does not parse, names another origin, chain or request, is too old, expired or
 * not yet valid, whose signature is not the address's, or whose nonce this service did not issue for this
 * request or was already spent.
 * @example const owner = await walletFromHeader(store, header, config.APP_URL, { method: 'GET', path: '/api/reports', purpose: 'Read the reports this wallet paid for' });
 */
export async function walletFromHeader(store: Store, header: string, appUrl: string, request: SignedRequest, now = Date.now()): Promise<string> {
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
  const expected = boundTo(appUrl, request);
  const resources = payload.resources ?? [];
  if (payload.uri !== expected.uri || payload.statement !== expected.statement || resources.length !== 1 || resources[0] !== expected.uri) {
    throw refused(
      `This message signs in for another request than ${request.method} ${request.path}: its uri and resources must be ${expected.uri} and its statement "${expected.statement}".`,
      { reason: 'invalid_siwx_request_mismatch' },
    );
  }
  const signature = await verifySIWxSignature(payload);
  if (!signature.isValid) throw refused('The signature is not the address\'s.', { reason: signature.invalidReason });
  const issuedFor = await store.takeRecord(issuedNonce(payload.nonce), now);
  if (issuedFor !== `${request.method} ${request.path}`) {
    throw refused(`This nonce was not issued by this service for ${request.method} ${request.path}, or it was already used or has expired.`, { reason: 'invalid_siwx_nonce' });
  }
  return walletOwner(signature.payer);
}

/**
 * What a caller needs to sign in with a wallet for `request`, in the x402 `sign-in-with-x` extension's shape: the
 * message's fields (a nonce issued now for this request and kept in the store, good for five minutes), the chain,
 * and the JSON Schema of the header.
 * @example problem('not-signed-in', '…', { extensions: await siwxChallenge(store, 'https://example.com', { method: 'GET', path: '/api/reports', purpose }) })
 */
export async function siwxChallenge(store: Store, appUrl: string, request: SignedRequest, now = Date.now()): Promise<Record<string, unknown>> {
  const nonce = crypto.randomBytes(16).toString('hex');
  await store.setRecord(issuedNonce(nonce), `${request.method} ${request.path}`, now, NONCE_TTL_MS);
  const { uri, statement, resources } = boundTo(appUrl, request);
  return {
    [SIGN_IN_WITH_X]: {
      info: {
        domain: new URL(appUrl).host,
        uri,
        statement,
        version: '1',
        nonce,
        issuedAt: new Date(now).toISOString(),
        expirationTime: new Date(now + SIWX_MAX_AGE_MS).toISOString(),
        resources,
      },
      supportedChains: [{ chainId: SIWX_CHAIN, type: 'eip191' }],
      schema: buildSIWxSchema(),
    },
  };
}
