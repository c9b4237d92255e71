import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes, isEIP3009Payload, type ExactEvmPayloadV2 } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { Challenge, Credential } from 'mppx';
import { evm } from 'mppx/client';
import { Methods as EvmMethods } from 'mppx/evm';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { answerEvidence, requestLine, statesTerms } from './answer';
import { termsOf, type ProbeContext, type ProbeItem } from './context';
import type { Evidence, Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES, rerun } from './sources';

// Bad credentials: a credential that cannot pay must be answered as an unpaid request is, 402 with terms an agent
// can pay, so it retries instead of giving up (500) or being served for nothing (200). Only the rails the
// endpoint offered are sent a credential. Nothing sent can move money: the malformed credentials decode to
// nothing, and the expired ones are signed by a key made for this check alone, which holds no funds, for an
// authorization whose validity ended an hour before the check began (a token contract refuses it on chain).

/** What the expired credentials say their validity ended at, before the check began. */
const EXPIRED_AGO_MS = 60 * 60 * 1000;
/** A token68 that base64url-decodes to text, not to a credential's JSON: past the grammar, into the decoder. */
const MALFORMED_MPP = `Payment ${Buffer.from('not an MPP credential').toString('base64url')}`;
/** Base64 that decodes to text, not to an x402 PaymentPayload's JSON. */
const MALFORMED_X402 = Buffer.from('not an x402 payment payload').toString('base64');
/**
 * The EIP-712 domain an MPP evm challenge does not state. USDC (FiatToken v2) is the token these rails charge in;
 * for another token the signature is merely wrong, which the seller must refuse the same way.
 */
const USDC_EIP712 = { name: 'USD Coin', version: '2' } as const;

const VERIFY_AGAIN = rerun('the Bad credentials item passes with each bad credential answered 402 with a fresh challenge');
const TRY_GARBAGE = `Send the documented request with a credential that cannot be read, e.g. curl -i -H 'Authorization: ${MALFORMED_MPP}' … and curl -i -H 'PAYMENT-SIGNATURE: ${MALFORMED_X402}' …: each answer is 402 with PAYMENT-REQUIRED and/or WWW-Authenticate: Payment.`;

const finding = (spec: Omit<FindingSpec, 'verify' | 'references'>): FindingSpec => ({
  ...spec,
  verify: [TRY_GARBAGE, VERIFY_AGAIN],
  references: [SOURCES.mpp, SOURCES.x402Http, SOURCES.http402],
});

const badCredentialsSpec: ItemSpec = {
  id: 'bad-credentials',
  title: 'Bad credentials',
  points: 10,
  verifies: "A malformed Authorization: Payment, a malformed PAYMENT-SIGNATURE and an expired challenge's credential each get 402 with a fresh challenge: never 500, never 200.",
  findings: {
    'bad-credential-accepted': finding({
      title: 'A credential that cannot pay is served',
      severity: 'critical',
      points: 10,
      why: 'A malformed or expired credential got a 2xx: the endpoint serves paid content for a credential that pays nothing, to anyone who sends one.',
      fix: 'Verify the credential (mppx verifies MPP credentials; an x402 facilitator verifies PAYMENT-SIGNATURE) before serving, and answer 402 with a fresh challenge when it fails.',
    }),
    'bad-credential-server-error': finding({
      title: 'A bad credential crashes the endpoint',
      severity: 'high',
      points: 10,
      why: "A malformed or expired credential got a 5xx: the agent cannot tell its own mistake from the seller's outage, gets no fresh challenge to pay, and gives up or retries the same bad credential.",
      fix: 'Catch credential decoding and verification errors and answer 402 with a fresh challenge (and a problem+json saying what was wrong) instead of letting them escape as a 500.',
    }),
    'bad-credential-not-402': finding({
      title: 'A bad credential is not answered 402',
      severity: 'medium',
      points: 5,
      why: 'A malformed or expired credential got a status other than 402 (a 400, 401, 403…): an agent is told the credential failed but is not given terms to pay again.',
      fix: 'Answer a credential that fails to decode or verify 402, with a fresh challenge, as an unpaid request is answered.',
    }),
    'bad-credential-without-fresh-challenge': finding({
      title: 'A bad credential gets a 402 without terms',
      severity: 'medium',
      points: 5,
      why: 'A malformed or expired credential got 402 but no PAYMENT-REQUIRED and no WWW-Authenticate: Payment: an agent must send another unpaid request to learn how to pay again.',
      fix: 'Send a fresh challenge with every 402, including those refusing a credential (mppx and the x402 middleware do when the failure goes through them).',
    }),
  },
};

/** The report's request list names each bad credential's request. */
const PURPOSE = {
  malformedMpp: 'bad credential: malformed Authorization: Payment',
  malformedX402: 'bad credential: malformed PAYMENT-SIGNATURE',
  expiredMpp: 'bad credential: MPP credential for an expired challenge',
  expiredX402: 'bad credential: expired x402 authorization',
} as const;

/** One bad credential: what it is in words, and the header that carries it. */
interface BadCredential {
  /** As the report's request list names it. */
  purpose: string;
  carried: string;
  header: Record<string, string>;
  note?: string;
}

/** What became of the expired credential that could not be built, for the evidence. */
type Built = BadCredential | { purpose: string; skipped: string };

/**
 * An MPP credential for the endpoint's own challenge with its `expires` set in the past. A challenge the seller
 * issued cannot be made to expire sooner without breaking its binding (an HMAC over its fields, in mppx): a seller
 * that checks the binding refuses it as not its own, one that does not must refuse it as expired; both are 402.
 * For an evm challenge the payload is the EIP-3009 authorization mppx's own client signs (validBefore is the
 * challenge's expires, so in the past); for another method an empty payload.
 */
async function expiredMppCredential(ctx: ProbeContext, account: PrivateKeyAccount): Promise<Built> {
  const challenges = ctx.terms.mpp.challenges;
  const chosen = challenges.find((c) => c.method === 'evm' && c.intent === 'charge') ?? challenges[0];
  if (!chosen) return { purpose: PURPOSE.expiredMpp, skipped: 'No WWW-Authenticate: Payment challenge parsed, so no MPP credential for an expired challenge was built.' };
  const expires = new Date(ctx.now.getTime() - EXPIRED_AGO_MS).toISOString();
  const expired = { ...chosen, expires };
  const carried = `an MPP credential (Authorization: Payment) for its ${chosen.method} challenge ${chosen.id} with expires set to ${expires}`;
  const unsigned = (why: string) => ({
    purpose: PURPOSE.expiredMpp,
    carried,
    header: { authorization: Credential.serialize(Credential.from({ challenge: expired, payload: {} })) },
    note: `An empty payload: ${why}.`,
  });
  if (chosen.method !== 'evm') return unsigned(`only an evm challenge's payload is signed here, and this one is ${chosen.method}`);
  try {
    const parsed = Challenge.deserialize(Challenge.serialize(expired), { methods: [EvmMethods.charge] });
    const authorization = await evm.charge({ account, authorization: USDC_EIP712 }).createCredential({ challenge: parsed, context: {} });
    return { purpose: PURPOSE.expiredMpp, carried, header: { authorization }, note: `Signed by ${account.address}, a key made for this check that holds no funds.` };
  } catch (error) {
    return unsigned(`mppx's evm client would not sign for this challenge (${(error as Error).message})`);
  }
}

/**
 * An x402 payment for the endpoint's terms as @x402/evm's client builds it, with its EIP-3009 authorization's
 * validBefore moved into the past and signed again: the client always signs an authorization valid from now,
 * so the expired one is signed here, over the same EIP-712 types it uses.
 */
async function expiredX402Payment(ctx: ProbeContext, account: PrivateKeyAccount): Promise<Built> {
  const header = ctx.terms.x402.header;
  if (header === null) return { purpose: PURPOSE.expiredX402, skipped: 'No PAYMENT-REQUIRED header, so no expired x402 payment was built.' };
  let required: PaymentRequired;
  try {
    required = decodePaymentRequiredHeader(header);
  } catch (error) {
    return { purpose: PURPOSE.expiredX402, skipped: `PAYMENT-REQUIRED did not decode (${(error as Error).message}), so no expired x402 payment was built.` };
  }
  const eip3009 = (required.accepts ?? []).filter(
    (a: PaymentRequirements) =>
      a.scheme === 'exact' && /^eip155:\d+$/.test(a.network) && typeof a.extra?.name === 'string' && typeof a.extra?.version === 'string' && a.extra?.assetTransferMethod !== 'permit2',
  );
  if (eip3009.length === 0) return { purpose: PURPOSE.expiredX402, skipped: 'PAYMENT-REQUIRED offers no exact EIP-3009 payment on an eip155 network, so no expired x402 payment was built.' };
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  let payment;
  try {
    payment = await client.createPaymentPayload({ ...required, accepts: eip3009 });
  } catch (error) {
    return { purpose: PURPOSE.expiredX402, skipped: `@x402/evm could not build a payment for these terms (${(error as Error).message}).` };
  }
  const accepted = payment.accepted;
  // The payload's type is the scheme's business; this one is checked to be EIP-3009's before it is read as such.
  const built = payment.payload as unknown as ExactEvmPayloadV2;
  if (!isEIP3009Payload(built)) return { purpose: PURPOSE.expiredX402, skipped: '@x402/evm built a payment that is not an EIP-3009 authorization.' };
  const validBefore = String(Math.floor((ctx.now.getTime() - EXPIRED_AGO_MS) / 1000));
  const authorization = { ...built.authorization, validAfter: '0', validBefore };
  const signature = await account.signTypedData({
    domain: { name: String(accepted.extra.name), version: String(accepted.extra.version), chainId: Number(accepted.network.split(':')[1]), verifyingContract: getAddress(accepted.asset) },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: getAddress(authorization.from),
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: 0n,
      validBefore: BigInt(validBefore),
      nonce: authorization.nonce as `0x${string}`,
    },
  });
  return {
    purpose: PURPOSE.expiredX402,
    carried: `an x402 PAYMENT-SIGNATURE for its ${accepted.network} terms whose EIP-3009 authorization expired at ${new Date(Number(validBefore) * 1000).toISOString()}`,
    header: { 'payment-signature': encodePaymentSignatureHeader({ ...payment, payload: { authorization, signature } }) },
    note: `Signed by ${account.address}, a key made for this check that holds no funds.`,
  };
}

/** The finding a bad credential's answer gives, or null for a 402 with terms. */
function faultOf(status: number, hasTerms: boolean): string | null {
  if (status >= 200 && status < 300) return 'bad-credential-accepted';
  if (status >= 500) return 'bad-credential-server-error';
  if (status !== 402) return 'bad-credential-not-402';
  return hasTerms ? null : 'bad-credential-without-fresh-challenge';
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  if (ctx.unpaidResponse?.status !== 402) {
    return { state: 'not-tested', why: 'The unpaid request was not answered 402, so there are no terms to present a bad credential against.', evidence: [], faults: [] };
  }
  const mpp = ctx.terms.mpp.headers.length > 0;
  const x402 = ctx.terms.x402.header !== null;
  if (!mpp && !x402) {
    return { state: 'not-tested', why: 'The 402 offered neither x402 nor MPP terms, so no rail to present a bad credential on.', evidence: [], faults: [] };
  }
  // One key for this check alone: never funded, never kept.
  const account = privateKeyToAccount(generatePrivateKey());
  const built: Built[] = [];
  if (mpp) built.push({ purpose: PURPOSE.malformedMpp, carried: 'a malformed Authorization: Payment (base64url of plain text, not a credential)', header: { authorization: MALFORMED_MPP } });
  if (x402) built.push({ purpose: PURPOSE.malformedX402, carried: 'a malformed PAYMENT-SIGNATURE (base64 of plain text, not JSON)', header: { 'payment-signature': MALFORMED_X402 } });
  if (mpp) built.push(await expiredMppCredential(ctx, account));
  if (x402) built.push(await expiredX402Payment(ctx, account));

  const evidence: Evidence[] = [];
  const seen = new Map<string, string[]>();
  let judged = 0;
  for (const credential of built) {
    if ('skipped' in credential) {
      evidence.push({ request: `not sent: ${credential.purpose}`, status: null, note: credential.skipped });
      continue;
    }
    const request = requestLine(ctx, credential.carried);
    const answer = await ctx.http.send({
      purpose: credential.purpose,
      method: ctx.input.method,
      url: ctx.url,
      headers: { ...ctx.requestHeaders, ...credential.header },
      ...(ctx.body !== undefined ? { body: ctx.body } : {}),
    });
    if (answer.kind !== 'answer') {
      evidence.push({ request, status: null, note: `Not answered: ${answer.message}` });
      continue;
    }
    judged += 1;
    const { response } = answer;
    evidence.push({ request, status: response.status, answer: answerEvidence(response), ...(credential.note ? { note: credential.note } : {}) });
    const id = faultOf(response.status, statesTerms(termsOf(response)));
    if (id !== null) seen.set(id, [...(seen.get(id) ?? []), `${credential.carried} got ${response.status}`]);
  }
  if (judged === 0) return { state: 'not-tested', why: 'No bad credential could be sent or answered.', evidence, faults: [] };
  const faults: Fault[] = [...seen].map(([id, cases]) => ({ id, observed: `${cases.join('; ')}.` }));
  if (faults.length > 0) return { state: 'fail', why: 'A credential that cannot pay was not answered 402 with a fresh challenge.', evidence, faults };
  return { state: 'pass', why: `Each of the ${judged} bad credentials sent was answered 402 with a fresh challenge.`, evidence, faults };
}

export const badCredentials: ProbeItem = { spec: badCredentialsSpec, probe };
