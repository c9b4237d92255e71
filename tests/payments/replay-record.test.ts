// The replay record: one stored shape and one lifetime for every paid answer kept under an Idempotency-Key,
// whether the pipeline kept it when the call was fulfilled or the reconciler when a late charge was found.
import { afterAll, describe, expect, it } from 'vitest';
import { Receipt, x402 } from 'mppx';
import { NO_RECEIPT, receiptHeaders } from '@/lib/payments/wire';
import { readReplayRecord, receiptOf, REPLAY_TTL_MS, writeReplayRecord, writeReportReplayRecord } from '@/lib/payments/replay-record';
import { reconcileOne, type SettlementProbe, type UnconfirmedSettlement } from '@/lib/payments/settlements';
import { sqliteHarness } from '../store/adapters';

const sqlite = sqliteHarness();
afterAll(() => sqlite.teardown());

// A real MPP receipt and x402 settlement, and the header values mppx writes for them.
const mpp = Receipt.from({ method: 'evm', reference: `0x${'ab'.repeat(32)}`, status: 'success', timestamp: '2026-11-28T03:00:00.000Z' });
const settlement = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453', payer: `0x${'12'.repeat(20)}` } as const;
const RECEIPT_HEADER = Receipt.serialize(mpp);
const SETTLEMENT_HEADER = x402.Header.encodePaymentResponse(settlement);

describe('replay record', () => {
  it('is written as {headers, body, report}: the JSON headers first, then the receipts as mppx writes them, the body text spliced in as sent', () => {
    expect(writeReplayRecord('{"service":"x","idempotencyKey":"k-0000001","paymentIntent":"pi_1"}', { mpp, x402: null }, null)).toBe(
      `{"headers":{"Content-Type":"application/json","Cache-Control":"no-store","Payment-Receipt":"${RECEIPT_HEADER}"},"body":{"service":"x","idempotencyKey":"k-0000001","paymentIntent":"pi_1"}}`,
    );
    expect(writeReplayRecord('{ "spaced" : 1 }', NO_RECEIPT, 'rep_abc')).toBe(
      '{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},"body":{ "spaced" : 1 },"report":"rep_abc"}',
    );
  });

  it('reads back the body, the receipts as objects, and the report id (null when none was kept)', () => {
    expect(readReplayRecord(writeReplayRecord('{"a":[1,2]}', { mpp, x402: settlement }, 'rep_1'))).toEqual({
      body: { a: [1, 2] },
      bodyInReport: false,
      receipt: { mpp, x402: settlement },
      reportId: 'rep_1',
      credentialDigest: null,
    });
    expect(readReplayRecord(writeReplayRecord('null', NO_RECEIPT, null))).toEqual({ body: null, bodyInReport: false, receipt: NO_RECEIPT, reportId: null, credentialDigest: null });
    expect(receiptOf({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })).toEqual({});
  });

  it('reads a record kept before receipts were objects: the same header values give the same receipts back, and an unreadable one none', () => {
    const stored = `{"headers":{"Content-Type":"application/json","Cache-Control":"no-store","Payment-Receipt":"${RECEIPT_HEADER}","PAYMENT-RESPONSE":"${SETTLEMENT_HEADER}"},"body":{}}`;
    const read = readReplayRecord(stored);
    expect(read.receipt).toEqual({ mpp, x402: settlement });
    // Written again, the headers are byte for byte the ones mppx wrote.
    expect(receiptHeaders(read.receipt)).toEqual({ 'Payment-Receipt': RECEIPT_HEADER, 'PAYMENT-RESPONSE': SETTLEMENT_HEADER });
    expect(readReplayRecord('{"headers":{"Payment-Receipt":"not base64 json"},"body":1}').receipt).toEqual(NO_RECEIPT);
  });

  it("keeps an x402 payment's digest last, and reads it back beside the body (null when none was kept)", () => {
    const digest = 'ab'.repeat(32);
    const text = writeReplayRecord('{"ok":true}', { mpp: null, x402: settlement }, null, digest);
    expect(text).toBe(`{"headers":{"Content-Type":"application/json","Cache-Control":"no-store","PAYMENT-RESPONSE":"${SETTLEMENT_HEADER}"},"body":{"ok":true},"credential":"${digest}"}`);
    expect(readReplayRecord(text)).toEqual({ body: { ok: true }, bodyInReport: false, receipt: { mpp: null, x402: settlement }, reportId: null, credentialDigest: digest });
  });

  it('names the report that holds its body instead of a copy of it, and reads back as such', () => {
    const text = writeReportReplayRecord(NO_RECEIPT, 'rep_1');
    expect(text).toBe('{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},"report":"rep_1"}');
    expect(readReplayRecord(text)).toEqual({ body: undefined, bodyInReport: true, receipt: NO_RECEIPT, reportId: 'rep_1', credentialDigest: null });
    // A record that holds its body reads it from there, whatever report it names.
    expect(readReplayRecord(writeReplayRecord('{"x":1}', NO_RECEIPT, 'rep_1')).bodyInReport).toBe(false);
  });

  it('lives 24 hours (the one TTL the pipeline and the reconciler keep an answer for)', () => {
    expect(REPLAY_TTL_MS).toBe(86_400_000);
  });

  it('is what the reconciler stores for a late charge: the paid body with its reference, replayable for REPLAY_TTL_MS from then', async () => {
    const store = sqlite.fresh();
    const now = 1_800_000_000_000;
    const settlement: UnconfirmedSettlement = {
      operation: 'readiness',
      scope: 'readiness:payer:abc:key-0000001',
      fingerprint: 'fp',
      idempotencyKey: 'key-0000001',
      trace: { rail: 'stripe', challengeId: 'ch_1', spt: 'spt_1', expiresAt: now + 60_000 },
      response: { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, service: 'Agent Payment Readiness Assessment', result: { score: 7 } },
      recordedAt: now - 1_000,
      status: 'pending',
    };
    const probe: SettlementProbe = { check: async () => ({ status: 'charged', reference: 'pi_late' }) };
    await store.beginIdempotent(settlement.scope, settlement.fingerprint, now - 2_000, 180_000);

    expect(await reconcileOne(store, probe, settlement, now)).toEqual({ status: 'charged', reference: 'pi_late' });

    const kept = await store.getIdempotent(settlement.scope, now + REPLAY_TTL_MS - 1);
    expect(kept).toEqual({
      state: 'done',
      fingerprint: 'fp',
      response:
        '{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},' +
        '"body":{"service":"Agent Payment Readiness Assessment","idempotencyKey":"key-0000001","paymentIntent":"pi_late","score":7}}',
    });
    expect(readReplayRecord((kept as { response: string }).response)).toEqual({
      body: { service: 'Agent Payment Readiness Assessment', idempotencyKey: 'key-0000001', paymentIntent: 'pi_late', score: 7 },
      bodyInReport: false,
      receipt: NO_RECEIPT,
      reportId: null,
      credentialDigest: null,
    });
    expect(await store.getIdempotent(settlement.scope, now + REPLAY_TTL_MS)).toBeNull();
  });
});
