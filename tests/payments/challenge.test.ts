// The 402 of spec 5.2, decoded field by field; identical terms for different bodies; unique challenges.
import { Challenge, PaymentRequest } from 'mppx';
import { describe, expect, it } from 'vitest';
import { liveRails, type PaymentConfig } from '../../lib/payments/config';
import { createPaymentRails } from '../../lib/payments/rails';
import { problem } from '../../lib/problems';
import { readinessCheck } from '../../lib/checks/readiness/entry';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { decodePaymentRequired, paymentRequiredHeader } from '@/lib/payments/wire';
import { parseWwwAuthenticate, postJson, rails, server, withPaidServer, type Rails, expectSpecPaymentTerms, expectSameTermsNewChallenges } from './harness';

const PAY = problem('payment-required', 'Pay 1.00 USD.');

withPaidServer();

describe('402 challenge', () => {
  it('answers 402 problem+json, no-store, with both MPP challenges and PAYMENT-REQUIRED (spec 5.2)', async () => {
    const res = await postJson(server.resource, { url: 'https://example.com' });
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ type: expect.stringMatching(/payment-required$/), status: 402, title: expect.any(String) });
    expect(typeof body.detail).toBe('string');

    expectSpecPaymentTerms(res, rails, { realm: new URL(server.url).host, resourceUrl: server.resource });
    // Expiry: the challenge is good for at most 5 minutes.
    for (const c of parseWwwAuthenticate(res.headers.get('www-authenticate')!)) {
      expect(Date.parse(c.params.expires!)).toBeLessThanOrEqual(Date.now() + 5 * 60 * 1000 + 1000);
    }
  });

  it('offers identical terms for two different bodies, with a fresh challenge each time', async () => {
    const a = await postJson(server.resource, { url: 'https://a.example' });
    const b = await postJson(server.resource, { capabilities: { x: 1 }, other: [1, 2, 3] });
    expectSameTermsNewChallenges(a, b);
  });

  it('never issues the same challenge twice, even for simultaneous requests', async () => {
    const all = await Promise.all(Array.from({ length: 40 }, () => server.payments.challenge(new URL(server.resource).pathname, PAY)));
    const ids = all.flatMap((c) => parseWwwAuthenticate(c.wwwAuthenticate).map((x) => x.params.id));
    expect(ids).toHaveLength(80);
    expect(new Set(ids).size).toBe(80);
  });

  it('derives realm and resource.url from APP_URL, not from the request', async () => {
    const payments = createPaymentRails({ ...configOf(rails), appUrl: 'https://checks.example.com/' })!;
    // Only a path goes in: the host a request came to never reaches the terms.
    const c = await payments.challenge('/api/agent/readiness', PAY);
    const [card] = parseWwwAuthenticate(c.wwwAuthenticate);
    expect(card!.params.realm).toBe('checks.example.com');
    expect(c.x402?.resource).toEqual({
      url: 'https://checks.example.com/api/agent/readiness',
      description: readinessCheck.summary,
      mimeType: 'application/json',
      serviceName: 'Paid Agent Checks',
      tags: ['readiness', 'agents', 'ai', 'audit'],
    });
  });
});

describe('challenges issued from a template', () => {
  it("are exactly mppx's: Challenge.from for the same terms and expiry gives the same id, fields and serialised header", async () => {
    const payments = createPaymentRails(configOf(rails))!;
    for (let i = 0; i < 3; i++) {
      const c = await payments.challenge(new URL(server.resource).pathname, PAY);
      expect(c.challenges.map((x) => x.method)).toEqual(['stripe', 'evm']);
      expect(c.wwwAuthenticate).toBe(c.challenges.map((x) => Challenge.serialize(x)).join(', '));
      for (const issued of c.challenges) {
        const { realm, method, intent, request, expires, opaque } = issued;
        expect(PaymentRequest.deserialize(opaque!)).toEqual({ operation: `POST ${new URL(server.resource).pathname}` });
        const theirs = Challenge.from({ realm, method, intent, request, expires, opaque, secretKey: rails.env.MPP_SECRET_KEY! });
        expect(issued).toEqual(theirs);
        expect(Challenge.serialize(issued)).toBe(Challenge.serialize(theirs));
        // mppx's own check of a credential's echoed challenge: the id is bound to these terms with the server's key.
        expect(Challenge.verify(issued, { secretKey: rails.env.MPP_SECRET_KEY! })).toBe(true);
      }
    }
  });
});

describe("x402's terms", () => {
  it('are one object per resource, encoded once as PAYMENT-REQUIRED, which reads back as the same terms', async () => {
    const payments = createPaymentRails(configOf(rails))!;
    const path = new URL(server.resource).pathname;
    const [first, second] = [await payments.challenge(path, PAY), await payments.challenge(path, PAY)];
    expect(second.x402).toBe(first.x402);
    const header = paymentRequiredHeader(first.x402!);
    expect(paymentRequiredHeader(second.x402!)).toBe(header);
    expect(decodePaymentRequired(header)).toEqual(first.x402);
    // The header is what x402's own client reads.
    expect(decodePaymentRequiredHeader(header).accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:8453', amount: '1000000' });
  });
});

describe('rail configuration', () => {
  it('offers only completely configured rails', async () => {
    const full = configOf(rails);
    expect(liveRails(full)).toEqual(['stripe', 'evm', 'x402']);
    expect(liveRails({ ...full, stripeNetworkId: undefined })).toEqual(['evm', 'x402']);
    expect(liveRails({ ...full, x402FacilitatorUrl: undefined })).toEqual(['stripe']);
    expect(liveRails({ ...full, payToAddress: undefined, stripeSecretKey: undefined })).toEqual([]);
    expect(liveRails({ ...full, mppSecretKey: undefined })).toEqual([]);
    expect(liveRails({ ...full, appUrl: undefined })).toEqual([]);
    expect(createPaymentRails({})).toBeNull();
    expect(() => createPaymentRails({ ...full, mppSecretKey: 'short' })).toThrow(/MPP_SECRET_KEY/);
  });

  it('a card-only configuration offers the card challenge and no PAYMENT-REQUIRED', async () => {
    const payments = createPaymentRails({ ...configOf(rails), x402FacilitatorUrl: undefined })!;
    const c = await payments.challenge(new URL(server.resource).pathname, PAY);
    expect(parseWwwAuthenticate(c.wwwAuthenticate).map((x) => x.params.method)).toEqual(['stripe']);
    expect(c.x402).toBeNull();
  });

  it('a USDC-only configuration offers the evm challenge and PAYMENT-REQUIRED', async () => {
    const payments = createPaymentRails({ ...configOf(rails), stripeSecretKey: undefined })!;
    const c = await payments.challenge(new URL(server.resource).pathname, PAY);
    expect(parseWwwAuthenticate(c.wwwAuthenticate).map((x) => x.params.method)).toEqual(['evm']);
    expect(c.x402?.x402Version).toBe(2);
  });
});

function configOf(r: Rails): PaymentConfig {
  return {
    appUrl: server.url,
    mppSecretKey: r.env.MPP_SECRET_KEY,
    payToAddress: r.env.PAY_TO_ADDRESS,
    usdcAddress: r.env.USDC_ADDRESS,
    x402FacilitatorUrl: r.env.X402_FACILITATOR_URL,
    stripeSecretKey: r.env.STRIPE_SECRET_KEY,
    stripeNetworkId: r.env.STRIPE_NETWORK_ID,
    stripeApiUrl: r.env.STRIPE_API_URL,
  };
}
