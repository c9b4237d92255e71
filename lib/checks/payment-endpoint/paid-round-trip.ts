import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { createPublicClient, erc20Abi, getAddress, http as rpcHttp, isAddressEqual, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { field, type ProbeContext, type ProbeItem } from './context';
import { recordProbeSpend, reserveDailySpend } from './probe-settings';
import type { Evidence, Fault, FindingSpec, ItemOutcome, ItemSpec, ProbeTransfer } from './types';
import { SOURCES } from './sources';

// The paid round trip: the check pays the endpoint for real, with the official x402 client and the operator's probe
// wallet, on a network the operator enabled for probing, and reads every transfer back on chain. Then it resends the
// same payment (a replay), pays again under the same payment-identifier (when the seller declares that extension),
// and pays with a body the seller's own schema refuses. Every signature is held against the per-check and the daily
// cap before it is made: a signed authorization may be settled whatever the seller answers.

const AGAIN = 'Run the Agent Payment Endpoint Check again with paidRoundTrip: true';

const finding = (f: FindingSpec) => f;

const findings = {
  'paid-not-200': finding({
    title: 'A valid payment was not answered 200',
    severity: 'critical',
    points: 10,
    why: 'An agent that paid gets nothing it can use: it has spent money, or holds a signed authorization, for an error.',
    fix: 'Serve the resource once the payment verifies and settles: answer 200 with the content and a PAYMENT-RESPONSE header.',
    verify: [`${AGAIN}: the first payment is answered 200.`],
    references: [SOURCES.x402Http],
  }),
  'paid-content-type': finding({
    title: 'The paid answer is not of the declared content type',
    severity: 'medium',
    points: 3,
    why: 'An agent parses the answer as the seller declared it (OpenAPI response content, bazaar output type); another type breaks it after paying.',
    fix: 'Answer the paid request with the media type your OpenAPI 200 response and bazaar output declare, or declare the one you send.',
    verify: [`${AGAIN}: the paid answer's Content-Type matches the declaration.`],
    references: [SOURCES.x402],
  }),
  'payment-response-missing': finding({
    title: 'The paid answer has no readable PAYMENT-RESPONSE',
    severity: 'medium',
    points: 3,
    why: 'Without the settlement response an agent cannot tell which transaction paid, nor prove the payment later.',
    fix: 'Send PAYMENT-RESPONSE (base64 JSON SettleResponse: success, transaction, network, payer) on the paid answer.',
    verify: [`${AGAIN}: the paid answer's PAYMENT-RESPONSE decodes with @x402/core's decodePaymentResponseHeader.`],
    references: [SOURCES.x402Http],
  }),
  'settlement-mismatch': finding({
    title: 'The transfer on chain does not match the terms',
    severity: 'critical',
    points: 10,
    why: 'The money moved differently from what the 402 offered (another asset, amount, recipient or network), or no transfer is there.',
    fix: 'Settle exactly the accepted requirements: the asset, amount and payTo of the accepts entry, on its network.',
    verify: [`${AGAIN}: the transaction in PAYMENT-RESPONSE holds one Transfer of the asset, amount and payTo of the terms.`],
    references: [SOURCES.x402, SOURCES.eip3009],
  }),
  'replay-settled-twice': finding({
    title: 'A resent payment settled again',
    severity: 'critical',
    points: 10,
    why: 'An agent retrying after a lost answer resends its payment; a seller that settles it again charges twice for one request.',
    fix: 'Refuse a payment already used (402) or answer it with the first answer, and never settle it a second time.',
    verify: [`${AGAIN}: the replay moves no USDC from the probe wallet and names no new transaction.`],
    references: [SOURCES.x402, SOURCES.eip3009],
  }),
  'payment-identifier-ignored': finding({
    title: 'A payment under a used payment-identifier settled again',
    severity: 'high',
    points: 6,
    why: 'The seller declares the payment-identifier extension, so an agent retries under the same id expecting the first answer; it was charged again instead.',
    fix: 'Keep the answer of each payment-identifier; a new payment with the same id and the same request gets that answer and is not settled.',
    verify: [`${AGAIN}: the second payment under the same id gets the first answer and moves no USDC.`],
    references: [SOURCES.x402PaymentId],
  }),
  'payment-identifier-conflict-accepted': finding({
    title: 'A used payment-identifier with another body was not refused 409',
    severity: 'medium',
    points: 3,
    why: 'The same id with another request is a client bug or an attack; answering it as if new hides the conflict.',
    fix: 'Answer 409 Conflict to a payment-identifier already used for a different request body.',
    verify: [`${AGAIN}: the same id with another body is answered 409.`],
    references: [SOURCES.x402PaymentId],
  }),
  'invalid-input-settled': finding({
    title: 'A payment with invalid input was settled',
    severity: 'critical',
    points: 10,
    why: 'A request the seller refuses must cost nothing: settling before validating charges an agent for an error.',
    fix: 'Validate the request before settling; refuse invalid input with 4xx and leave the payment unsettled.',
    verify: [`${AGAIN}: the request with invalid input is answered 4xx and the probe wallet's USDC does not move.`],
    references: [SOURCES.x402],
  }),
} satisfies Record<string, FindingSpec>;

type FindingId = keyof typeof findings;

const paidRoundTripSpec: ItemSpec = {
  id: 'paid-round-trip',
  title: 'Paid round trip',
  points: 10,
  verifies: 'One real payment gets 200 with content of the declared type and a receipt matching a transfer on chain; a replay, a payment-identifier reused and a payment with invalid input move no second transfer.',
  findings,
};

const cut = (s: string, n = 2000) => (s.length > n ? `${s.slice(0, n)}…` : s);
const notTested = (why: string, evidence: Evidence[] = []): ItemOutcome => ({ state: 'not-tested', why, evidence, faults: [] });

/** One on-chain Transfer out of the probe wallet. */
interface Moved {
  txHash: Hex;
  to: Hex;
  amount: bigint;
  asset: Hex;
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  if (!ctx.input.paidRoundTrip) return notTested('Not asked for: the request did not set paidRoundTrip.');
  const paymentRequired = ctx.terms.x402.decoded as PaymentRequired | null;
  const accepts = (Array.isArray(field(paymentRequired, 'accepts')) ? field(paymentRequired, 'accepts') : []) as PaymentRequirements[];
  const enabled = ctx.probe.networks;
  const accepted = accepts.find((a) => a?.scheme === 'exact' && enabled.includes(a.network) && /^\d+$/.test(String(a.amount)) && typeof a.asset === 'string' && typeof a.payTo === 'string');
  if (!paymentRequired || !accepted) {
    const offered = [...new Set(accepts.map((a) => String(a?.network)))];
    return notTested(
      `The endpoint offers no x402 exact payment on a network enabled for probing (enabled: ${enabled.join(', ')}; offered: ${offered.length ? offered.join(', ') : 'none'}).`,
    );
  }
  if (!ctx.probe.privateKey) return notTested('The operator has not given the probe a wallet (PROBE_WALLET_PRIVATE_KEY is not set).');
  const rpcUrl = ctx.probe.rpcUrls[accepted.network];
  if (!rpcUrl) return notTested(`The operator has not given an RPC endpoint for ${accepted.network} (PROBE_RPC_URLS), so transfers could not be read back.`);
  const ledger = ctx.probe.ledger;
  if (!ledger) return notTested('No spend ledger is available to keep the daily cap, so nothing was paid.');

  const price = BigInt(accepted.amount);
  const account = privateKeyToAccount(ctx.probe.privateKey);
  const wallet = account.address;
  const asset = getAddress(accepted.asset);
  const payTo = getAddress(accepted.payTo);
  // No cache: block numbers are read before and after each step.
  const chain = createPublicClient({ transport: rpcHttp(rpcUrl), cacheTime: 0 }) as PublicClient;
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account, networks: [accepted.network as `${string}:${string}`] });

  const evidence: Evidence[] = [];
  const faults: Fault[] = [];
  const transfers: ProbeTransfer[] = [];
  const roundTrip = async (): Promise<ItemOutcome> => {
    const fault = (id: FindingId, observed: string) => faults.push({ id, observed });
    let spent = 0n;

    /** Holds one more signature's amount against both caps; a reason when it does not fit. */
    const hold = async (): Promise<string | null> => {
      if (spent + price > ctx.probe.maxSpendUnits) return `another payment of ${price} base units would pass this check's cap of ${ctx.probe.maxSpendUnits} (PROBE_MAX_SPEND_UNITS; ${spent} already held)`;
      const day = await reserveDailySpend(ledger, price, ctx.probe.dailySpendUnits, ctx.now);
      if (!day.reserved) return `another payment of ${price} base units would pass today's cap of ${ctx.probe.dailySpendUnits} across all checks (PROBE_DAILY_SPEND_UNITS; ${day.spentToday} already held today)`;
      spent += price;
      return null;
    };
    const balance = () => chain.readContract({ address: asset, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] });
    const block = () => chain.getBlockNumber();
    /** Transfers of the asset out of the probe wallet mined after `from`. */
    const movedSince = async (from: bigint): Promise<Moved[]> => {
      // A range ending where it starts is not asked for: a node may answer a range past its head with older logs.
      const to = await block();
      if (to <= from) return [];
      const logs = await chain.getLogs({ address: asset, event: erc20Abi.find((e) => e.type === 'event' && e.name === 'Transfer')!, args: { from: wallet }, fromBlock: from + 1n, toBlock: to });
      return logs.map((l) => ({ txHash: l.transactionHash!, to: getAddress(l.args.to!), amount: l.args.value!, asset }));
    };
    const keep = async (moved: Moved[], step: string) => {
      for (const m of moved) {
        const t: ProbeTransfer = { network: accepted.network, asset: m.asset, amount: String(m.amount), payTo: m.to, txHash: m.txHash, step };
        transfers.push(t);
        await recordProbeSpend(ledger, { at: new Date().toISOString(), ...t, target: ctx.url.href });
      }
    };

    const declaresId = field(field(paymentRequired, 'extensions'), PAYMENT_IDENTIFIER) !== undefined;
    /** Signs one payment of the accepted terms, carrying `id` as its payment-identifier when given. */
    const sign = async (id: string | null): Promise<{ header: string; payload: PaymentPayload }> => {
      const extensions = structuredClone((paymentRequired.extensions ?? {}) as Record<string, unknown>);
      if (id) appendPaymentIdentifierToExtensions(extensions, id);
      const payload = await client.createPaymentPayload({ ...paymentRequired, accepts: [accepted], extensions });
      return { header: encodePaymentSignatureHeader(payload), payload };
    };
    const send = (purpose: string, header: string, body: string | undefined) =>
      ctx.http.send({ purpose, method: ctx.input.method, url: ctx.url, headers: { ...ctx.requestHeaders, 'PAYMENT-SIGNATURE': header }, ...(body !== undefined ? { body } : {}) });
    const request = (what: string) => `${ctx.input.method} ${ctx.url.href} with ${what}`;
    const settled = (header: string | null) => {
      if (!header) return null;
      try {
        return decodePaymentResponseHeader(header);
      } catch {
        return null;
      }
    };

    // (1) Pay once.
    const id = declaresId ? generatePaymentId('probe_') : null;
    const held = await hold();
    if (held) return notTested(`Nothing was paid: ${held}.`);
    const before = await balance();
    const start = await block();
    const first = await sign(id);
    const answer = await send('paid request', first.header, ctx.body);
    if (answer.kind !== 'answer') {
      await keep(await movedSince(start), 'first payment');
      return { state: 'not-tested', why: `The paid request got no HTTP answer: ${answer.message}.`, evidence: [{ request: request('a payment'), status: null, note: answer.message }], faults, transfers };
    }
    const paid = answer.response;
    const receipt = settled(paid.header('payment-response'));
    const moved = await movedSince(start);
    await keep(moved, 'first payment');
    const afterFirst = await balance();
    evidence.push({
      request: request(`a payment of ${price} base units on ${accepted.network}${id ? ' and a payment-identifier' : ''}`),
      status: paid.status,
      answer: { contentType: paid.header('content-type'), paymentResponse: receipt ?? cut(paid.header('payment-response') ?? 'absent'), balanceMoved: String(before - afterFirst), body: paid.status === 200 ? undefined : cut(paid.body, 500) },
      txHashes: moved.map((m) => m.txHash),
    });
    if (paid.status !== 200) {
      fault('paid-not-200', `The paid request was answered ${paid.status}, not 200${moved.length ? `, and settled ${moved.map((m) => m.txHash).join(', ')}` : ''}.`);
      return { state: 'fail', why: `A valid payment was answered ${paid.status}; the other steps need a paid 200 first.`, evidence, faults, transfers };
    }
    const declared = declaredType(ctx);
    const got = (paid.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (declared && got !== declared) fault('paid-content-type', `Declared ${declared}, answered ${got || 'no Content-Type'}.`);
    if (!receipt) fault('payment-response-missing', paid.header('payment-response') ? 'PAYMENT-RESPONSE did not decode as a SettleResponse.' : 'No PAYMENT-RESPONSE header.');
    const match = moved.find((m) => m.txHash === receipt?.transaction) ?? moved[0];
    const problems: string[] = [];
    if (moved.length !== 1) problems.push(`${moved.length} transfers left the probe wallet (expected 1)`);
    if (match && !isAddressEqual(match.to, payTo)) problems.push(`paid ${match.to}, terms name ${payTo}`);
    if (match && match.amount !== price) problems.push(`moved ${match.amount}, terms name ${price}`);
    if (receipt && receipt.network !== accepted.network) problems.push(`PAYMENT-RESPONSE names ${receipt.network}, terms name ${accepted.network}`);
    if (receipt && match && receipt.transaction !== match.txHash) problems.push(`PAYMENT-RESPONSE names ${receipt.transaction}, the transfer is ${match.txHash}`);
    if (problems.length) fault('settlement-mismatch', `${problems.join('; ')}.`);
    const firstTx = match?.txHash ?? null;

    // (2) Replay: the same PAYMENT-SIGNATURE again. The same authorization cannot move money twice on chain, so nothing more is held.
    const replayStart = await block();
    const replay = await send('replayed payment', first.header, ctx.body);
    const replayMoved = await movedSince(replayStart);
    await keep(replayMoved, 'replay');
    const afterReplay = await balance();
    const replayReceipt = replay.kind === 'answer' ? settled(replay.response.header('payment-response')) : null;
    evidence.push({
      request: request('the same PAYMENT-SIGNATURE resent'),
      status: replay.kind === 'answer' ? replay.response.status : null,
      answer: { paymentResponse: replayReceipt, balanceMoved: String(afterFirst - afterReplay) },
      txHashes: replayMoved.map((m) => m.txHash),
    });
    const newTx = replayReceipt?.success && replayReceipt.transaction && replayReceipt.transaction !== firstTx ? replayReceipt.transaction : null;
    if (replayMoved.length || afterReplay !== afterFirst || newTx) {
      fault('replay-settled-twice', `The replay moved ${afterFirst - afterReplay} base units${newTx ? ` and named a new transaction ${newTx}` : ''}.`);
    }

    const skipped: string[] = [];
    // (3) The payment-identifier: a new payment under the first one's id.
    if (!id) skipped.push('payment-identifier (the seller does not declare the extension)');
    else {
      const why = await hold();
      if (why) skipped.push(`payment-identifier (${why})`);
      else {
        const again = await sign(id);
        const idStart = await block();
        const same = await send('payment-identifier reused', again.header, ctx.body);
        const idMoved = await movedSince(idStart);
        await keep(idMoved, 'payment-identifier reused');
        const sameAnswer = same.kind === 'answer' ? same.response : null;
        evidence.push({
          request: request('a new payment under the same payment-identifier and the same body'),
          status: sameAnswer?.status ?? null,
          answer: { sameAsFirst: sameAnswer?.body === paid.body, paymentResponse: settled(sameAnswer?.header('payment-response') ?? null) },
          txHashes: idMoved.map((m) => m.txHash),
        });
        if (idMoved.length) fault('payment-identifier-ignored', `The second payment under id ${id} settled: ${idMoved.map((m) => m.txHash).join(', ')}.`);
        else {
          // Another body under the same id, with a new authorization: a seller may refuse one it has seen (402) before
          // it reads the id, so resending the last one would not test the conflict.
          const room = await hold();
          if (room) skipped.push(`payment-identifier with another body (${room})`);
          else {
          const conflictPayment = await sign(id);
          const other = otherBody(ctx.body);
          const conflict = await send('payment-identifier with another body', conflictPayment.header, other);
          const conflictMoved = await movedSince(idStart);
          await keep(conflictMoved, 'payment-identifier with another body');
          const status = conflict.kind === 'answer' ? conflict.response.status : null;
          evidence.push({ request: request('the same payment-identifier and another body'), status, txHashes: conflictMoved.map((m) => m.txHash) });
          if (conflictMoved.length) fault('payment-identifier-ignored', `A payment under id ${id} with another body settled: ${conflictMoved.map((m) => m.txHash).join(', ')}.`);
          else if (status !== 409) fault('payment-identifier-conflict-accepted', `The same id with another body was answered ${status ?? 'nothing'}, not 409.`);
          }
        }
      }
    }

    // (4) A payment with input the seller's own schema refuses.
    const invalid = invalidBody(ctx);
    if (!invalid) skipped.push('invalid input (the seller declares no input schema a body could fail)');
    else {
      const why = await hold();
      if (why) skipped.push(`invalid input (${why})`);
      else {
        const payment = await sign(id ? generatePaymentId('probe_') : null);
        const badStart = await block();
        const bad = await send('payment with invalid input', payment.header, invalid);
        const badMoved = await movedSince(badStart);
        await keep(badMoved, 'invalid input');
        const status = bad.kind === 'answer' ? bad.response.status : null;
        evidence.push({ request: request(`a new payment and the invalid body ${cut(invalid, 200)}`), status, answer: { body: bad.kind === 'answer' ? cut(bad.response.body, 500) : null }, txHashes: badMoved.map((m) => m.txHash) });
        if (badMoved.length) fault('invalid-input-settled', `Answered ${status ?? 'nothing'} and settled ${badMoved.map((m) => m.txHash).join(', ')}.`);
      }
    }

    const state = faults.length ? 'fail' : 'pass';
    const steps = skipped.length ? ` Not tested: ${skipped.join('; ')}.` : '';
    const why = faults.length
      ? `${faults.length} fault(s) in ${transfers.length} transfer(s) made.${steps}`
      : `One payment settled as its terms say (${firstTx}); the replay and the other steps moved nothing more.${steps}`;
    return { state, why, evidence, faults, transfers };
  };

  try {
    return await roundTrip();
  } catch (error) {
    // A node that does not answer, or terms the x402 client cannot sign: the item is not tested, the rest of the
    // report stands, and what was already paid is still listed.
    const message = cut(error instanceof Error ? error.message.split('\n')[0] : String(error), 300);
    return { state: 'not-tested', why: `The paid round trip stopped: ${message}`, evidence, faults: [], transfers };
  }
}

/** The media type the seller declares for the paid answer: its OpenAPI 200 response's first content type, else the bazaar output's type. */
function declaredType(ctx: ProbeContext): string | null {
  const op = field(field(field(ctx.discovery.openapi.json, 'paths'), ctx.url.pathname), ctx.input.method.toLowerCase());
  const content = field(field(field(op, 'responses'), '200'), 'content');
  if (content && typeof content === 'object') {
    const first = Object.keys(content)[0];
    if (first) return first.toLowerCase();
  }
  const type = field(field(field(field(field(ctx.terms.x402.decoded, 'extensions'), 'bazaar'), 'info'), 'output'), 'type');
  return type === 'json' ? 'application/json' : null;
}

/** The body's JSON schema as the seller declares it: the bazaar's input body schema, else its OpenAPI request schema (inline only). */
function inputSchema(ctx: ProbeContext): Record<string, unknown> | null {
  const bazaar = field(field(field(field(field(field(field(ctx.terms.x402.decoded, 'extensions'), 'bazaar'), 'schema'), 'properties'), 'input'), 'properties'), 'body');
  const op = field(field(field(ctx.discovery.openapi.json, 'paths'), ctx.url.pathname), ctx.input.method.toLowerCase());
  const openapi = field(field(field(field(op, 'requestBody'), 'content'), 'application/json'), 'schema');
  for (const s of [bazaar, openapi]) if (s && typeof s === 'object' && !Array.isArray(s) && !('$ref' in s)) return s as Record<string, unknown>;
  return null;
}

/** A body the declared schema refuses: `{}` when it requires members, else its first member with the wrong type. */
function invalidBody(ctx: ProbeContext): string | null {
  if (ctx.input.method === 'GET') return null;
  const schema = inputSchema(ctx);
  const required = field(schema, 'required');
  if (Array.isArray(required) && required.length) return '{}';
  const properties = field(schema, 'properties');
  const [name, member] = properties && typeof properties === 'object' ? (Object.entries(properties)[0] ?? []) : [];
  if (!name) return null;
  return JSON.stringify({ [name]: field(member, 'type') === 'number' || field(member, 'type') === 'integer' ? 'not a number' : 12345 });
}

/**
 * Another body the seller should still accept: its first string member (depth first) with a suffix, so a seller that
 * keys on the exact request sees a different one while its schema (most often strict) still passes it.
 */
function otherBody(body: string | undefined): string {
  let changed = false;
  const vary = (v: unknown): unknown => {
    if (changed) return v;
    if (typeof v === 'string') {
      changed = true;
      return `${v}-probe2`;
    }
    if (Array.isArray(v)) return v.map(vary);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, vary(x)]));
    return v;
  };
  try {
    const varied = vary(JSON.parse(body ?? '{}'));
    if (changed) return JSON.stringify(varied);
  } catch {
    // Not JSON: fall through.
  }
  return JSON.stringify({ probeVariant: 2 });
}

export const paidRoundTrip: ProbeItem = { spec: paidRoundTripSpec, probe };
