// The x402 extensions of every paid route's real 402: `bazaar` (discovery) checked with @x402/extensions' own
// validators, and `payment-identifier` advertised as optional. Each check's 402 comes from its REST route,
// through the production pipeline, with the rails configured as a deployment configures them.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from '@x402/extensions/bazaar';
import { isPaymentIdentifierExtension, paymentIdentifierSchema } from '@x402/extensions/payment-identifier';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks } from '@/lib/checks/registry';
import { createPaymentRails } from '@/lib/payments/rails';
import { decodedPaymentSignature, paymentIdentifierOf } from '@/lib/payments/x402-extensions';
import { signedX402Payment } from '@/lib/payments/verify';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const APP_URL = 'https://checks.example.com';
let rt: TestRuntime;

beforeAll(() => {
  const rails = createPaymentRails({
    appUrl: APP_URL,
    mppSecretKey: 'k'.repeat(40),
    payToAddress: '0x2222222222222222222222222222222222222222',
    x402FacilitatorUrl: 'http://127.0.0.1:9/facilitator',
  });
  rt = installTestRuntime({ APP_URL }, { rails });
});
afterAll(async () => {
  await rt?.dispose();
});

/** The 402 of `check`'s REST route for its own example body, and its PAYMENT-REQUIRED decoded. */
async function paymentRequiredOf(id: string, body: unknown) {
  const res = await agentCheckRoute(id).POST(
    new Request(`${APP_URL}/api/agent/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  );
  expect(res.status).toBe(402);
  const header = res.headers.get('payment-required');
  expect(header).not.toBeNull();
  return { header: header!, required: decodePaymentRequiredHeader(header!) };
}

describe.each(checks().map((c) => [c.id, c] as const))('the 402 of %s', (id, check) => {
  it('carries the bazaar extension: POST, a JSON example body and its schema, an example answer and its schema; both @x402/extensions validators pass', async () => {
    const { required } = await paymentRequiredOf(id, check.example);
    const bazaar = required.extensions!.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({ valid: true });
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });

    const info = bazaar.info as { input: Record<string, unknown>; output: { type: string; example: Record<string, unknown> } };
    expect(info.input).toEqual({ type: 'http', method: 'POST', bodyType: 'json', body: check.example });
    const schema = bazaar.schema as unknown as { properties: { input: { properties: Record<string, unknown> }; output: { properties: { example: Record<string, unknown> } } } };
    expect(schema.properties.input.properties.method).toEqual({ type: 'string', enum: ['POST'] });
    // The body's schema is the entry's input schema, whole.
    const { $schema: _d, ...inputSchema } = z.toJSONSchema(check.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    expect(schema.properties.input.properties.body).toEqual(inputSchema);
    // The example answer is the entry's real answer, in the 200 body's envelope, and it passes the output schema.
    expect(info.output.type).toBe('json');
    expect(info.output.example.service).toBe(check.service);
    const answer = check.exampleAnswer();
    expect(info.output.example.artifactHash).toBe(answer.artifactHash);
    expect(Object.keys(info.output.example).sort()).toEqual(Object.keys(check.output.parse({ service: check.service, idempotencyKey: 'x', paymentIntent: 'x', ...answer }) as Record<string, unknown>).sort());
    expect(schema.properties.output.properties.example.type).toBe('object');
    expect(Object.keys(schema.properties.output.properties.example.properties as Record<string, unknown>)).toEqual(expect.arrayContaining(['service', 'idempotencyKey', 'artifactHash', 'limits']));

    // The same validators refuse an example body the schema does not describe, so they are really applied.
    const broken = { ...bazaar, info: { ...bazaar.info, input: { ...info.input, body: { unexpected: true } } } } as unknown as DiscoveryExtension;
    expect(validateDiscoveryExtension(broken).valid).toBe(false);
  });

  it('names the service and tags the resource, advertises payment-identifier as optional, and stays under the 16 KiB header limit of Node clients', async () => {
    const { header, required } = await paymentRequiredOf(id, check.example);
    expect(required.resource).toEqual({
      url: `${APP_URL}${check.path}`,
      description: check.summary,
      mimeType: 'application/json',
      serviceName: 'Paid Agent Checks',
      tags: [check.id, 'agents', 'ai', 'audit'],
    });
    const identifier = required.extensions!['payment-identifier'];
    expect(isPaymentIdentifierExtension(identifier)).toBe(true);
    expect(identifier).toEqual({ info: { required: false }, schema: paymentIdentifierSchema });
    // mppx's own route-binding extension is still there beside ours.
    expect(Object.keys(required.extensions!).sort()).toEqual(['bazaar', 'mppx', 'payment-identifier']);
    expect(Buffer.byteLength(header)).toBeLessThan(12 * 1024);
  });
});

describe("a payment's payment-identifier (paymentIdentifierOf)", () => {
  const payment = (extensions?: Record<string, unknown>) =>
    encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: { scheme: 'exact', network: 'eip155:8453', amount: '1000000', asset: `0x${'1'.repeat(40)}`, payTo: `0x${'2'.repeat(40)}`, maxTimeoutSeconds: 300, extra: {} },
      payload: { signature: '0x00', authorization: { from: `0x${'3'.repeat(40)}`, to: `0x${'2'.repeat(40)}`, value: '1000000', validAfter: '0', validBefore: '9999999999', nonce: `0x${'4'.repeat(64)}` } },
      ...(extensions ? { extensions } : {}),
    });
  const ID = 'pay_0123456789abcdef';

  it('reads the id, none, or why the id is not one', () => {
    expect(paymentIdentifierOf(payment())).toEqual({ id: null });
    expect(paymentIdentifierOf(payment({ 'payment-identifier': { info: { required: false }, schema: paymentIdentifierSchema } }))).toEqual({ id: null });
    expect(paymentIdentifierOf(payment({ 'payment-identifier': { info: { required: false, id: ID }, schema: paymentIdentifierSchema } }))).toEqual({ id: ID });
    expect(paymentIdentifierOf(payment({ 'payment-identifier': { info: { required: false, id: 'short' }, schema: paymentIdentifierSchema } }))).toEqual({
      invalid: 'Invalid payment ID format. ID must be 16-128 characters and contain only alphanumeric characters, hyphens, and underscores.',
    });
    expect(paymentIdentifierOf(payment({ 'payment-identifier': { info: { id: ID }, schema: paymentIdentifierSchema } }))).toEqual({ invalid: "Extension info must have a 'required' boolean property" });
  });

  it("judges the id by the schema we declared, never by the schema the payment echoes (no caller's JSON Schema is compiled)", () => {
    // A schema that refuses every info, and one that cannot even be compiled: neither changes the verdict.
    for (const schema of [{ type: 'number' }, { $ref: '#/definitions/nowhere' }]) {
      expect(paymentIdentifierOf(payment({ 'payment-identifier': { info: { required: false, id: ID }, schema } }))).toEqual({ id: ID });
      expect(paymentIdentifierOf(payment({ 'payment-identifier': { info: { required: false, id: 'short' }, schema } }))).toHaveProperty('invalid');
    }
  });
});

describe('a payment decoded once for all its readers (decodedPaymentSignature)', () => {
  const payment = (nonce: number) =>
    encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: { scheme: 'exact', network: 'eip155:8453', amount: '1000000', asset: `0x${'1'.repeat(40)}`, payTo: `0x${'2'.repeat(40)}`, maxTimeoutSeconds: 300, extra: {} },
      payload: { signature: '0x00', authorization: { from: `0x${'3'.repeat(40)}`, to: `0x${'2'.repeat(40)}`, value: '1000000', validAfter: '0', validBefore: '9999999999', nonce: `0x${nonce.toString(16).padStart(64, '0')}` } },
    });

  it('gives every reader of one payment the same decoded object, and each payment its own', () => {
    const first = payment(1);
    const decoded = decodedPaymentSignature(first);
    expect(decodedPaymentSignature(first)).toBe(decoded);
    expect(decoded).toMatchObject({ x402Version: 2, payload: { authorization: { nonce: `0x${'1'.padStart(64, '0')}` } } });
    const other = decodedPaymentSignature(payment(2));
    expect(other).not.toBe(decoded);
    expect(other).toMatchObject({ payload: { authorization: { nonce: `0x${'2'.padStart(64, '0')}` } } });
    // The payer and digest read from the kept decoding are those of the payment itself.
    expect(signedX402Payment(first)).toEqual({ payer: `evm:8453:0x${'3'.repeat(40)}`, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(signedX402Payment(first)!.digest).not.toBe(signedX402Payment(payment(2))!.digest);
  });

  it('refuses an undecodable value every time it is asked, as mppx does', () => {
    for (let i = 0; i < 2; i++) expect(() => decodedPaymentSignature('not base64 json')).toThrow();
    expect(paymentIdentifierOf('not base64 json')).toEqual({ id: null });
    expect(signedX402Payment('not base64 json')).toBeNull();
  });

  it('keeps only the last 32 payments: an older one is decoded afresh', () => {
    const oldest = payment(100);
    const kept = decodedPaymentSignature(oldest);
    for (let i = 0; i < 32; i++) decodedPaymentSignature(payment(200 + i));
    const again = decodedPaymentSignature(oldest);
    expect(again).not.toBe(kept);
    expect(again).toEqual(kept);
  });
});
