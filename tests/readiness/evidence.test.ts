import { describe, expect, it } from 'vitest';
import { EVIDENCE_RULES, classifyEvidence, type EvidenceKind } from '@/lib/checks/readiness/evidence';

// Evidence strings as buyers write them, each with the kind the published rules give it.

const TABLE: Array<[string, EvidenceKind]> = [
  // url
  ['https://api.example.com/openapi.json', 'url'],
  ['http://localhost:3000/llms.txt', 'url'],
  ['dashboard at https://grafana.example.com/d/payments', 'url'],
  ['See https://github.com/acme/shop/pull/88 for the change', 'url'],
  ['https://dashboard.stripe.com/test/webhooks/we_1Pq', 'url'],
  // command
  ['npx mppx validate https://api.example.com --endpoint POST:/v1/orders', 'command'],
  ['$ stripe trigger payment_intent.succeeded', 'command'],
  ['`make reconcile`', 'command'],
  ['curl -si -X POST https://api.example.com/v1/orders', 'command'],
  ['stripe listen --forward-to localhost:3000/api/webhook', 'command'],
  ['go test ./payments/...', 'command'],
  ['pnpm test:e2e', 'command'],
  ['psql -c "select count(*) from orders where state = \'paid\'"', 'command'],
  ['> npm run ledger -- reconcile', 'command'],
  ['python -m pytest tests/test_webhooks.py', 'command'],
  // test
  ['tests/api/idempotency.test.ts', 'test'],
  ['payments/webhook_test.go', 'test'],
  ['test_reconcile.py', 'test'],
  ['src/test/java/shop/OrderServiceTest.java', 'test'],
  ["it('replays the stored answer for the same key')", 'test'],
  ['describe("webhook signature")', 'test'],
  ['Idempotency-Key replay test', 'test'],
  ['checkout.spec.ts covers the 402 flow', 'test'],
  ['webhook signature rejection tests', 'test'],
  // path
  ['lib/payments/webhook.ts', 'path'],
  ['openapi.json with x-payment-info', 'path'],
  ['migrations/0004_orders.sql', 'path'],
  ['src/orders', 'path'],
  ['docs', 'path'],
  ['doc', 'path'],
  ['/api/agent/readiness', 'path'],
  ['./scripts/reconcile.ts', 'path'],
  ['README.md section Payments', 'path'],
  ['app/api/billing/webhook/route.ts verifies Stripe-Signature', 'path'],
  // reference
  ['PAY-412', 'reference'],
  ['PR #88', 'reference'],
  ['fixed in #1234', 'reference'],
  ['evt_1PqR2sT3uV4wX5yZ', 'reference'],
  ['settled as pi_3Nx8YzLkdIwHu7ix0w2Y', 'reference'],
  ['0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060', 'reference'],
  ['runbook "stuck settlements"', 'reference'],
  ['incident 2026-10-04', 'reference'],
  ['ADR-7 idempotency storage', 'reference'],
  // statement
  ['402 with MPP challenges', 'statement'],
  ['orders table', 'statement'],
  ['artifact hash stored', 'statement'],
  ['we verify signatures', 'statement'],
  ['yes', 'statement'],
  ['done and deployed', 'statement'],
  ['implements EIP-3009', 'statement'],
  ['follows RFC-9457 for errors', 'statement'],
  ['we have no test', 'statement'],
  ['unit test', 'statement'],
  ['retries and/or refunds are handled', 'statement'],
  ['make sure to retry', 'statement'],
  ['go live next week', 'statement'],
  ['Stripe handles it', 'statement'],
  ['the log shows it', 'statement'],
];

describe('evidence classification', () => {
  it(`classifies ${TABLE.length} real-looking strings by the published rules`, () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    const got = TABLE.map(([text]) => [text, classifyEvidence(text).kind]);
    expect(got).toEqual(TABLE);
  });

  it('covers every kind in the table', () => {
    expect(new Set(TABLE.map(([, kind]) => kind))).toEqual(new Set(['url', 'command', 'test', 'path', 'reference', 'statement']));
  });

  it('is checkable for every kind but statement, and keeps the text as given', () => {
    for (const [text, kind] of TABLE) expect(classifyEvidence(text)).toEqual({ text, kind, checkable: kind !== 'statement' });
  });

  it('classifies each published example as its own rule', () => {
    for (const rule of EVIDENCE_RULES) for (const example of rule.examples) expect([example, classifyEvidence(example).kind]).toEqual([example, rule.kind]);
  });

  it('takes the first rule that matches: a command naming a test file is a command, a test file is a test before a path', () => {
    expect(classifyEvidence('npx vitest run tests/api/idempotency.test.ts').kind).toBe('command');
    expect(classifyEvidence('tests/api/idempotency.test.ts').kind).toBe('test');
    expect(classifyEvidence('https://example.com/tests/a.test.ts').kind).toBe('url');
  });
});
