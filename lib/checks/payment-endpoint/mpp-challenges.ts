import { Challenge } from 'mppx';
import { ChargeRequestSchema } from 'mppx/evm';
import { z } from 'zod';
import type { ProbeContext, ProbeItem } from './context';
import { clip, judged, unpaidRequest } from './judge';
import type { Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES, rerun } from './sources';

// MPP's challenges as an MPP client reads them: each WWW-Authenticate: Payment value parsed by mppx (the context
// did that once), the parsed challenge held to mppx's own challenge schema, and the request of each method mppx
// implements held to what that method's client reads: evm with mppx's canonical charge-request schema, stripe
// with the fields mppx's `validate` command requires (mppx exports no wire schema for stripe's request, only the
// route's input one).

const RERUN = rerun('the MPP challenges item passes with no finding');
const MPPX_VALIDATE = 'Run `npx mppx validate <url>`: every challenge check passes.';

const FINDINGS = {
  'mpp-challenge-unparseable': {
    title: 'A WWW-Authenticate: Payment challenge does not parse',
    severity: 'high',
    points: 10,
    why: 'An MPP client that cannot parse the challenge (auth-params, a base64url JSON request) has nothing to pay; the agent gives up.',
    fix: 'Emit each challenge as mppx does: id, realm, method, intent and request="<base64url JSON>" as quoted auth-params, challenges separated by commas or on their own header lines.',
    verify: [MPPX_VALIDATE, RERUN],
    references: [SOURCES.mpp, SOURCES.httpAuth],
  },
  'mpp-challenge-invalid': {
    title: 'A Payment challenge lacks a required field (id, realm, method, intent, request)',
    severity: 'high',
    points: 10,
    why: 'The credential echoes the challenge: without an id, realm, method, intent and request a client cannot build one the server accepts.',
    fix: 'Give every challenge a unique id, the realm (your host), the method and intent, and the request.',
    verify: [MPPX_VALIDATE, RERUN],
    references: [SOURCES.mpp],
  },
  'mpp-challenge-expired': {
    title: "A Payment challenge's expires is not a future date",
    severity: 'high',
    points: 10,
    why: 'A client refuses a challenge already past its expires (and one whose expires is not a date); the agent is told to pay terms that cannot be paid.',
    fix: 'Set expires to an RFC 3339 time a few minutes after the 402 is sent, from a clock kept in sync.',
    verify: [MPPX_VALIDATE, RERUN],
    references: [SOURCES.mpp],
  },
  'mpp-challenge-no-expiry': {
    title: 'A Payment challenge has no expires',
    severity: 'low',
    points: 2,
    why: 'A challenge that never expires can be answered with a credential long after the terms changed; mppx warns of it.',
    fix: 'Set expires on every challenge (mppx sets five minutes by default).',
    verify: [MPPX_VALIDATE, RERUN],
    references: [SOURCES.mpp],
  },
  'mpp-realm-mismatch': {
    title: "A Payment challenge's realm is not the endpoint's host",
    severity: 'low',
    points: 2,
    why: 'Clients and wallets show the realm as who is asking to be paid; a realm that is not the host the agent called reads as someone else.',
    fix: "Set realm to the endpoint's host name (or its parent domain).",
    verify: [MPPX_VALIDATE, RERUN],
    references: [SOURCES.mpp, SOURCES.httpAuth],
  },
  'mpp-method-request-invalid': {
    title: "A Payment challenge's request lacks fields its method needs",
    severity: 'high',
    points: 10,
    why: "Each method's client reads its own fields (evm: amount, currency, recipient, methodDetails.chainId; stripe: amount, currency, methodDetails.networkId and paymentMethodTypes); a request without them cannot be paid with that method.",
    fix: "Build each method's challenge with mppx's method (mppx/evm's charge, mppx/stripe's charge) so its request has the method's fields, amounts as integers of the smallest unit.",
    verify: [MPPX_VALIDATE, RERUN],
    references: [SOURCES.mpp, SOURCES.mppStripe],
  },
} satisfies Record<string, FindingSpec>;

type FindingId = keyof typeof FINDINGS;

const mppChallengesSpec: ItemSpec = {
  id: 'mpp-challenges',
  title: 'MPP challenges',
  points: 10,
  verifies: "Every WWW-Authenticate: Payment challenge parses and validates with mppx: id, realm, method, intent, base64url request, a future expires, and each method's own fields.",
  findings: FINDINGS,
};

/** What mppx's `validate` command requires of a stripe charge request, as a schema. */
const StripeChargeRequest = z.object({
  amount: z.string().regex(/^\d+$/, 'amount is not an integer of the smallest unit'),
  currency: z.string().regex(/^[a-z]{3}$/i, 'currency is not a three-letter ISO 4217 code'),
  methodDetails: z.object({
    networkId: z.string().min(1),
    paymentMethodTypes: z.array(z.string()).min(1),
  }),
});

/** Each method's request schema, for the methods mppx implements. */
const METHOD_REQUEST: Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } } }> = {
  evm: ChargeRequestSchema,
  stripe: StripeChargeRequest,
};

function challengeFaults(challenge: Challenge.Challenge, host: string, now: Date): Array<{ id: FindingId; observed: string }> {
  const tag = `${challenge.method || '?'}/${challenge.intent || '?'} challenge ${challenge.id ? `"${challenge.id.slice(0, 16)}"` : '(no id)'}`;
  const faults: Array<{ id: FindingId; observed: string }> = [];
  const parsed = Challenge.Schema.safeParse(challenge);
  const missing = (['id', 'realm', 'method', 'intent'] as const).filter((k) => !challenge[k]);
  if (!parsed.success || missing.length) {
    const issues = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    faults.push({ id: 'mpp-challenge-invalid', observed: `${tag}: ${[...missing.map((k) => `${k} is empty`), ...issues].join('; ')}` });
  }
  if (challenge.expires === undefined) faults.push({ id: 'mpp-challenge-no-expiry', observed: `${tag} has no expires` });
  else {
    const at = Date.parse(challenge.expires);
    if (Number.isNaN(at) || at <= now.getTime()) faults.push({ id: 'mpp-challenge-expired', observed: `${tag} expires ${JSON.stringify(challenge.expires)}; the check read it at ${now.toISOString()}` });
  }
  if (challenge.realm && challenge.realm !== host && !host.endsWith(`.${challenge.realm}`)) {
    faults.push({ id: 'mpp-realm-mismatch', observed: `${tag} has realm "${challenge.realm}"; the endpoint's host is ${host}` });
  }
  const schema = METHOD_REQUEST[challenge.method];
  const request = schema?.safeParse(challenge.request);
  if (request && !request.success) {
    const issues = (request.error?.issues ?? []).slice(0, 5).map((i) => `request.${i.path.map(String).join('.')}: ${i.message}`);
    faults.push({ id: 'mpp-method-request-invalid', observed: `${tag}: ${issues.join('; ')}` });
  }
  return faults;
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  const { mpp } = ctx.terms;
  const request = unpaidRequest(ctx);
  const status = ctx.unpaidResponse?.status ?? null;
  if (mpp.headers.length === 0) {
    return { state: 'not-applicable', why: 'The unpaid answer carries no WWW-Authenticate: Payment challenge: the endpoint does not offer MPP.', evidence: [{ request, status, note: 'no WWW-Authenticate: Payment' }], faults: [] };
  }
  const byId = new Map<FindingId, string[]>();
  const add = (id: FindingId, observed: string) => byId.set(id, [...(byId.get(id) ?? []), observed]);
  for (const error of mpp.errors) add('mpp-challenge-unparseable', clip(error, 300));
  for (const challenge of mpp.challenges) for (const f of challengeFaults(challenge, ctx.url.hostname, ctx.now)) add(f.id, f.observed);
  const faults: Fault[] = [...byId].map(([id, observed]) => ({ id, observed: observed.join('; ') }));
  const answer = {
    challenges: mpp.challenges.map((c) => ({ id: c.id, realm: c.realm, method: c.method, intent: c.intent, expires: c.expires ?? null, request: c.request, validated: c.method in METHOD_REQUEST ? `mppx ${c.method} request schema` : 'no method schema known; common fields only' })),
    ...(mpp.errors.length ? { unparsed: mpp.headers.map((h) => clip(h, 500)) } : {}),
  };
  return judged(faults, FINDINGS, `${mpp.challenges.length} Payment challenge${mpp.challenges.length === 1 ? '' : 's'} (${mpp.challenges.map((c) => `${c.method}/${c.intent}`).join(', ')}) parse and validate with mppx.`, [{ request, status, answer }]);
}

export const mppChallenges: ProbeItem = { spec: mppChallengesSpec, probe };
