// The replay record: one stored shape and one lifetime for every paid answer kept under an Idempotency-Key,
// whether the pipeline kept it when the call was fulfilled or the reconciler when a late charge was found.
import { afterAll, describe, expect, it } from 'vitest';
import { readReplayRecord, receiptOf, REPLAY_TTL_MS, writeReplayRecord } from '@/lib/replay-record';
import { reconcileOne, type SettlementProbe, type UnconfirmedSettlement } from '@/lib/payments/settlements';
import { sqliteHarness } from '../store/adapters';

const sqlite = sqliteHarness();
afterAll(() => sqlite.teardown());

describe('replay record', () => {
  it('is written as {headers, body, report}: the JSON headers first, then the receipt, the body text spliced in as sent', () => {
    expect(writeReplayRecord('{"service":"x","idempotencyKey":"k-0000001","paymentIntent":"pi_1"}', { 'Payment-Receipt': 'rcpt' }, null)).toBe(
      '{"headers":{"Content-Type":"application/json","Cache-Control":"no-store","Payment-Receipt":"rcpt"},"body":{"service":"x","idempotencyKey":"k-0000001","paymentIntent":"pi_1"}}',
    );
    expect(writeReplayRecord('{ "spaced" : 1 }', {}, 'rep_abc')).toBe(
      '{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},"body":{ "spaced" : 1 },"report":"rep_abc"}',
    );
  });

  it('reads back the body, the receipt without the JSON headers, and the report id (null when none was kept)', () => {
    expect(readReplayRecord(writeReplayRecord('{"a":[1,2]}', { 'Payment-Receipt': 'r', 'PAYMENT-RESPONSE': 'p' }, 'rep_1'))).toEqual({
      body: { a: [1, 2] },
      receipt: { 'Payment-Receipt': 'r', 'PAYMENT-RESPONSE': 'p' },
      reportId: 'rep_1',
      credentialDigest: null,
    });
    expect(readReplayRecord(writeReplayRecord('null', {}, null))).toEqual({ body: null, receipt: {}, reportId: null, credentialDigest: null });
    expect(receiptOf({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })).toEqual({});
  });

  it("keeps an x402 payment's digest last, and reads it back beside the body (null when none was kept)", () => {
    const digest = 'ab'.repeat(32);
    const text = writeReplayRecord('{"ok":true}', { 'PAYMENT-RESPONSE': 'p' }, null, digest);
    expect(text).toBe(`{"headers":{"Content-Type":"application/json","Cache-Control":"no-store","PAYMENT-RESPONSE":"p"},"body":{"ok":true},"credential":"${digest}"}`);
    expect(readReplayRecord(text)).toEqual({ body: { ok: true }, receipt: { 'PAYMENT-RESPONSE': 'p' }, reportId: null, credentialDigest: digest });
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
      receipt: {},
      reportId: null,
      credentialDigest: null,
    });
    expect(await store.getIdempotent(settlement.scope, now + REPLAY_TTL_MS)).toBeNull();
  });
});
