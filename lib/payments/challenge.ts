// The 402: both MPP challenges (WWW-Authenticate: Payment, card + evm) and x402 v2's PAYMENT-REQUIRED, as
// mppx builds them, with a problem+json body of ours. The terms never depend on the request body, and every
// call issues a challenge no other request gets (see uniqueExpiry in rails.ts).
//
// Cost: running mppx's whole charge handler for each unpaid request costs ~0.7-1.5 ms of CPU here, most of it
// in work whose result never changes for a resource (method terms, request encoding, the x402 header, which
// mppx builds by re-parsing the challenges it just serialized). So the handler runs ONCE per resource and HTTP
// method and its terms are kept as a template; each 402 then gets a new challenge made from that template with
// mppx's own Challenge.from (HMAC-bound id over realm, method, intent, request and a fresh expiry) and
// Challenge.serialize, ~0.07 ms. Nothing that identifies a challenge is reused: every 402 has its own id and
// expiry, so every evm authorization nonce (derived from the challenge) is new. Verification is untouched: it
// is mppx's handler, which recomputes the id from the credential's echoed challenge with the same key.
// x402's terms get the resource's extensions and service metadata (x402-extensions.ts) once, as the template is
// learnt: they depend on the resource only, so a template's terms are one object, encoded once (wire.ts).
// Each challenge names the operation it pays for (`operationOf`: the method and path of the resource) in mppx's
// `meta`, which travels as the HMAC-bound `opaque`: mppx refuses a credential whose opaque differs from the one
// the operation it is presented at would issue, so a credential offered for one route or tool pays for no other
// (verify.ts says so first, in our own terms).
// Even Challenge.from redoes per 402 what is fixed for the template: it validates the challenge with zod,
// canonicalises and base64-encodes the same request twice (for the id and for the header) and computes the
// HMAC in JavaScript; that was two thirds of an unpaid 402's own CPU. So a template also keeps, per method, the
// id's binding input and the serialised challenge with the two places where the id and the expiry go, and a 402
// fills them in (the HMAC by node:crypto). Learning the template proves the shortcut: a challenge made both ways
// for one expiry must match byte for byte (id, header, object), else the template keeps using Challenge.from.
import crypto from 'node:crypto';
import { Challenge, PaymentRequest } from 'mppx';
import { canonicalJson } from '@/lib/canonical-json';
import { problem, type Problem } from '@/lib/problems';
import { PRICE_USD } from '@/lib/price';
import type { PaymentRequired } from '@x402/core/types';
import { withX402Terms } from './x402-extensions';

/**
 * A 402's terms as data: the MPP challenges (with WWW-Authenticate, which the shortcut below writes as it makes
 * them) and x402's PaymentRequired. The REST transport (lib/transports/http.ts `outcomeResponse`) renders them as
 * headers, the MCP transport as JSON-RPC data or a tool result.
 */
export interface PaymentChallenge {
  status: 402;
  problem: Problem;
  /** One challenge per offered MPP method, as mppx's Challenge objects. */
  challenges: Challenge.Challenge[];
  /** WWW-Authenticate: every challenge, serialised once. */
  wwwAuthenticate: string;
  /** x402 v2's terms (sent as PAYMENT-REQUIRED, or in an MCP result), or null without the x402 rail. One object per resource: read it, never change it. */
  x402: PaymentRequired | null;
}

export const DEFAULT_CHALLENGE_DETAIL =
  `Pay ${PRICE_USD} USD per request: by card (MPP method stripe), in USDC on Base (MPP method evm, or x402 v2 with ` +
  'PAYMENT-SIGNATURE), or send a prepaid credits key as Authorization: Bearer.';

/** An mppx charge handler: a 402 for a request without credential, else a 200 with its receipt writer. */
export type ChargeHandler = (input: Request) => Promise<
  | { status: 402; challenge: Response }
  | { status: 200; withReceipt(response?: Response): Response }
>;

/**
 * What issuing a 402 needs of the rails (the ChallengeIssuer of rails.ts have all of it); declared here, so this
 * module needs nothing from rails.ts, which builds on it.
 */
export interface ChallengeIssuer {
  appUrl: string;
  /** Public URL of a resource path, the x402 resource.url: APP_URL's origin + path. */
  resourceUrl(pathname: string): string;
  /** @internal Handler issuing challenges for `operation` (see operationOf), each one unique (see uniqueExpiry in rails.ts). */
  challengeHandler(operation: string): ChargeHandler;
  /** @internal The HMAC key binding challenge ids (challenges are issued with mppx's Challenge.from). */
  secretKey: string;
  /** @internal A challenge expiry no other challenge of this process has (see uniqueExpiry in rails.ts). */
  nextExpiry(): string;
}

type Terms = { realm: string; method: string; intent: string; request: Record<string, unknown>; opaque?: string };

/**
 * The operation a challenge for `resourceUrl` pays for, as its `meta.operation` names it: the HTTP method and the
 * resource's path. One per route, whichever transport (REST or MCP) carries the call.
 * @example operationOf('POST', 'https://checks.example/api/agent/readiness') // 'POST /api/agent/readiness'
 */
export function operationOf(method: string, resourceUrl: string): string {
  return `${method.toUpperCase()} ${new URL(resourceUrl).pathname}`;
}

/** One method's challenge made ready for any expiry: what its HMAC binds and its header around the id and expiry. */
interface PreparedTerms {
  terms: Terms;
  /** The id's binding input before and after the expiry. */
  binding: [before: string, after: string];
  /** Its serialised challenge: before the id, between the id and the expiry, after the expiry. */
  header: [string, string, string];
}

/** The per-resource terms mppx offered: everything in a challenge except its id and expiry. */
interface ChallengeTemplate {
  terms: Terms[];
  /** The same terms prepared for the shortcut, or null when the shortcut did not prove equal to mppx's. */
  prepared: PreparedTerms[] | null;
  x402: PaymentRequired | null;
}

const templates = new WeakMap<ChallengeIssuer, Map<string, Promise<ChallengeTemplate | null>>>();
/** Resources are APP_URL + a registered path, so this bound is never reached in practice. */
const MAX_TEMPLATES = 64;

/**
 * The 402 terms for `resourceUrl` (APP_URL + a path) with `body` as its problem. The terms depend on the
 * resource and the method only, never on a request's headers or body.
 * @example const offer = await challenge(rails, rails.resourceUrl(check.path), problem('payment-required', 'Pay 1.00 USD.'))
 */
export async function challenge(
  rails: ChallengeIssuer,
  resourceUrl: string,
  body: Problem = problem('payment-required', DEFAULT_CHALLENGE_DETAIL),
  method = 'POST',
): Promise<PaymentChallenge> {
  const template = await templateFor(rails, method, resourceUrl);
  const offered = template ? fromTemplate(rails, template) : await fromHandler(rails, method, resourceUrl);
  return { status: 402, problem: { ...body, status: 402 }, ...offered };
}

/**
 * The x402 terms a 402 for `resourceUrl` offers (the same object every 402 for it carries), or null without the
 * x402 rail: what an x402 payment presented for that resource echoes.
 * @example (await offeredX402(rails, rails.resourceUrl(check.path)))?.resource.url // 'https://checks.example/api/agent/readiness'
 */
export async function offeredX402(rails: ChallengeIssuer, resourceUrl: string, method = 'POST'): Promise<PaymentRequired | null> {
  const template = await templateFor(rails, method, resourceUrl);
  return template ? template.x402 : (await fromHandler(rails, method, resourceUrl)).x402;
}

type Offered = Pick<PaymentChallenge, 'challenges' | 'wwwAuthenticate' | 'x402'>;

/** A new challenge per offered method, from the template: fresh expiry, hence a fresh HMAC-bound id. */
function fromTemplate(rails: ChallengeIssuer, template: ChallengeTemplate): Offered {
  const expires = rails.nextExpiry();
  if (template.prepared) {
    const made = template.prepared.map((p) => issuePrepared(p, expires, rails.secretKey));
    return { challenges: made.map((m) => m.challenge), wwwAuthenticate: made.map((m) => m.header).join(', '), x402: template.x402 };
  }
  const challenges = template.terms.map((terms) => mppxChallenge(terms, expires, rails.secretKey));
  return { challenges, wwwAuthenticate: challenges.map((c) => Challenge.serialize(c)).join(', '), x402: template.x402 };
}

function mppxChallenge(terms: Terms, expires: string, secretKey: string): Challenge.Challenge {
  return Challenge.from({ ...terms, expires, secretKey });
}

/** Where the id and the expiry go in a challenge serialised once (plain ASCII, which the header writes as is). */
const ID_SLOT = 'pac0id0slot';
const EXPIRES_SLOT = 'pac0expires0slot';

/**
 * `terms` ready to issue challenges with any expiry. The id binds, in MPP's order separated by `|`, realm, method,
 * intent, the serialised request, the expiry, the digest (empty in a template) and the opaque data.
 */
function prepare(terms: Terms): PreparedTerms | null {
  const before = [terms.realm, terms.method, terms.intent, PaymentRequest.serialize(terms.request), ''].join('|');
  const serialised = Challenge.serialize({ ...terms, id: ID_SLOT, expires: EXPIRES_SLOT } as Challenge.Challenge);
  const [head, rest, ...more] = serialised.split(ID_SLOT);
  const [middle, tail, ...extra] = (rest ?? '').split(EXPIRES_SLOT);
  if (rest === undefined || more.length || tail === undefined || extra.length) return null;
  return { terms, binding: [before, `||${terms.opaque ?? ''}`], header: [head!, middle!, tail] };
}

function issuePrepared(p: PreparedTerms, expires: string, secretKey: string): { challenge: Challenge.Challenge; header: string } {
  const id = crypto.createHmac('sha256', secretKey).update(p.binding[0] + expires + p.binding[1]).digest('base64url');
  const { realm, method, intent, request, opaque } = p.terms;
  const challenge = { id, realm, method, intent, request, expires, ...(opaque !== undefined && { opaque }) } as Challenge.Challenge;
  return { challenge, header: p.header[0] + id + p.header[1] + expires + p.header[2] };
}

/** The prepared terms, if a challenge they issue for `expires` is exactly mppx's: the same id, header and fields. */
function proven(terms: Terms[], expires: string, secretKey: string): PreparedTerms[] | null {
  const prepared: PreparedTerms[] = [];
  for (const t of terms) {
    const p = prepare(t);
    if (!p) return null;
    const ours = issuePrepared(p, expires, secretKey);
    const theirs = mppxChallenge(t, expires, secretKey);
    if (ours.header !== Challenge.serialize(theirs) || canonicalJson(ours.challenge) !== canonicalJson(theirs)) return null;
    prepared.push(p);
  }
  return prepared;
}

/** mppx's charge handler, run for this one request (where no template applies). */
async function fromHandler(rails: ChallengeIssuer, method: string, url: string): Promise<Offered> {
  const headers = await handlerHeaders(rails, method, url);
  return {
    challenges: Challenge.fromHeadersList(headers),
    wwwAuthenticate: headers.get('WWW-Authenticate') ?? '',
    x402: withX402Terms(headers.get('PAYMENT-REQUIRED'), url),
  };
}

/** The 402 headers mppx's charge handler writes (used to learn a template, and where none applies). */
async function handlerHeaders(rails: ChallengeIssuer, method: string, url: string): Promise<Headers> {
  const result = await rails.challengeHandler(operationOf(method, url))(new Request(url, { method }));
  if (result.status !== 402) throw new Error('payments: a request without credential was not challenged');
  // mppx's merged 402 carries exactly WWW-Authenticate, PAYMENT-REQUIRED, Cache-Control and Content-Type.
  return result.challenge.headers;
}

function templateFor(rails: ChallengeIssuer, method: string, url: string): Promise<ChallengeTemplate | null> {
  let byResource = templates.get(rails);
  if (!byResource) templates.set(rails, (byResource = new Map()));
  const key = `${method} ${url}`;
  let template = byResource.get(key);
  if (!template) {
    template = learnTemplate(rails, method, url);
    // A failed attempt (mppx threw) is not remembered: the next request tries again.
    template.catch(() => byResource.delete(key));
    if (byResource.size < MAX_TEMPLATES) byResource.set(key, template);
  }
  return template;
}

async function learnTemplate(rails: ChallengeIssuer, method: string, url: string): Promise<ChallengeTemplate | null> {
  const headers = await handlerHeaders(rails, method, url);
  try {
    const offered = Challenge.fromHeadersList(headers);
    // Only charge challenges bound to nothing but the resource (its operation, in `opaque`) are templated; one bound
    // to more (a body digest, a description, a credential header) keeps going through mppx's handler every time.
    const plain = offered.every((c) => c.digest === undefined && c.meta === undefined && c.description === undefined && c.header === undefined);
    if (offered.length === 0 || !plain) return null;
    const terms = offered.map((c) => ({ realm: c.realm, method: c.method, intent: c.intent, request: c.request, ...(c.opaque !== undefined && { opaque: c.opaque }) }));
    return { terms, prepared: proven(terms, rails.nextExpiry(), rails.secretKey), x402: withX402Terms(headers.get('PAYMENT-REQUIRED'), url) };
  } catch {
    return null;
  }
}
