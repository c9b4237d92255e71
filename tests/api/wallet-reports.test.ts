// A wallet that paid reads its reports back with Sign-In-With-X: the readiness route and the reports routes
// served in-process over node:http, paid on the local rails by real clients (@x402/fetch, mppx evm and card),
// and read with a SIGN-IN-WITH-X header signed by the paying anvil account (@x402/extensions createSIWxPayload).
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createSIWxMessage, createSIWxPayload, encodeSIWxHeader, type SIWxExtensionInfo } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import type Stripe from 'stripe';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as listRoute } from '@/app/api/reports/route';
import { GET as reportRoute } from '@/app/api/reports/[id]/route';
import { PROBLEM_BASE } from '@/lib/problems';
import { startRails, type Rails } from '../../scripts/rails/start';
import { decodeBase64Json } from '../payments/harness';
import { validReadinessBody, type TestRuntime } from '../support/runtime';
import { serveWebHandler, type WebServer } from '../support/web-server';
import { sptFromTestHelper } from '../support/card';
import { agentCheckRoute } from '../support/check-routes';
import { installRailsRuntime, stripeSdk } from '../support/rails-runtime';

const { POST } = agentCheckRoute('readiness');
const PATH = '/api/agent/readiness';

let rails: Rails;
let server: WebServer;
let appUrl: string;
let rt: TestRuntime;
let sdk: Stripe;

beforeAll(async () => {
  rails = await startRails();
  server = await serveWebHandler((request) => {
    const { pathname } = new URL(request.url);
    if (request.method === 'POST' && pathname === PATH) return POST(request);
    if (request.method === 'GET' && pathname === '/api/reports') return listRoute(request);
    const id = /^\/api\/reports\/([^/]+)$/.exec(pathname)?.[1];
    if (request.method === 'GET' && id) return reportRoute(request, { params: Promise.resolve({ id }) });
    return new Response('not found', { status: 404 });
  });
  appUrl = server.url;
  rt = installRailsRuntime(rails, { APP_URL: appUrl });
  sdk = stripeSdk(rails);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await rt?.dispose();
  await rails?.stop();
});

const payer = () => privateKeyToAccount(rails.payer.privateKey);
const readinessBody = (name: string) => JSON.stringify(validReadinessBody({ workflow: { name, intendedUsers: 'agents', targetEnvironment: 'production' } }));
const REPORT_LINK = /^<\/api\/reports\/(rep_[A-Za-z0-9_-]{32})>; rel="related"$/;

function payWithX402(name: string): Promise<Response> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: payer() });
  return wrapFetchWithPayment(fetch, client)(`${appUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: readinessBody(name) });
}

function payWithMppEvm(name: string): Promise<Response> {
  const client = Mppx.create({ polyfill: false, methods: [evm.charge({ account: payer(), authorization: { name: 'USD Coin', version: '2' } })] });
  return client.fetch(`${appUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: readinessBody(name) });
}

interface Unauthorized {
  type: string;
  extensions: { 'sign-in-with-x': { info: SIWxExtensionInfo; supportedChains: Array<{ chainId: string; type: 'eip191' }> } };
}

/** The wallet challenge a 401 offers for `path`. */
async function challengeFor(path: string): Promise<Unauthorized['extensions']['sign-in-with-x']> {
  const res = await fetch(`${appUrl}${path}`);
  expect(res.status).toBe(401);
  const body = (await res.json()) as Unauthorized;
  expect(body.type).toBe(`${PROBLEM_BASE}not-signed-in`);
  return body.extensions['sign-in-with-x'];
}

/**
 * A SIGN-IN-WITH-X header for `path`, signed by `privateKey` over the server's challenge: as a client signs it
 * (createSIWxPayload, which also refuses a challenge bound to another origin), or edited by `change` first and
 * signed as it stands (an attacker's or a careless client's message).
 */
async function signIn(path: string, privateKey = rails.payer.privateKey, change?: (info: SIWxExtensionInfo) => SIWxExtensionInfo): Promise<string> {
  const { info, supportedChains } = await challengeFor(path);
  const account = privateKeyToAccount(privateKey);
  if (!change) return encodeSIWxHeader(await createSIWxPayload({ ...info, ...supportedChains[0] }, account, `${appUrl}${path}`));
  const edited = { ...change(info), ...supportedChains[0] };
  const signature = await account.signMessage({ message: createSIWxMessage(edited, account.address) });
  return encodeSIWxHeader({ ...edited, address: account.address, signature });
}

const read = (path: string, header: string) => fetch(`${appUrl}${path}`, { headers: { 'SIGN-IN-WITH-X': header } });

async function expectRefused(res: Response, reason: string): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = (await res.json()) as { type: string; reason: string };
  expect(body.type).toBe(`${PROBLEM_BASE}wallet-sign-in-refused`);
  expect(body.reason).toBe(reason);
}

describe('reports of a wallet that paid, read with SIGN-IN-WITH-X', () => {
  let x402Report: string;
  let x402Tx: string;
  let x402Body: unknown;
  let evmReport: string;
  let evmTx: string;

  beforeAll(async () => {
    const paidX402 = await payWithX402('x402 wallet');
    expect(paidX402.status).toBe(200);
    x402Report = REPORT_LINK.exec(paidX402.headers.get('link') ?? '')?.[1] ?? 'no-link';
    x402Tx = decodeBase64Json<{ transaction: string }>(paidX402.headers.get('payment-response')).transaction;
    x402Body = await paidX402.json();
    const paidEvm = await payWithMppEvm('mpp evm wallet');
    expect(paidEvm.status).toBe(200);
    evmReport = REPORT_LINK.exec(paidEvm.headers.get('link') ?? '')?.[1] ?? 'no-link';
    evmTx = decodeBase64Json<{ reference: string }>(paidEvm.headers.get('payment-receipt')).reference;
  }, 120_000);

  it('links each paid call to its report (x402 and MPP evm)', () => {
    expect(x402Report).toMatch(/^rep_/);
    expect(evmReport).toMatch(/^rep_/);
    expect(evmReport).not.toBe(x402Report);
  });

  it('answers 401 without a credential, with a fresh wallet challenge bound to this origin and path', async () => {
    const first = await challengeFor('/api/reports');
    const second = await challengeFor('/api/reports');
    const origin = new URL(appUrl);
    expect(first.info).toMatchObject({ domain: origin.host, uri: `${origin.origin}/api/reports`, version: '1', resources: [`${origin.origin}/api/reports`] });
    expect(first.supportedChains).toEqual([{ chainId: 'eip155:8453', type: 'eip191' }]);
    expect(first.info.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(second.info.nonce).not.toBe(first.info.nonce);
    expect(Date.parse(first.info.expirationTime!) - Date.parse(first.info.issuedAt)).toBe(5 * 60 * 1000);
  });

  it('the paying address reads its report and lists both, each naming the transaction that paid', async () => {
    const one = await read(`/api/reports/${x402Report}`, await signIn(`/api/reports/${x402Report}`));
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(x402Body);
    const list = await read('/api/reports', await signIn('/api/reports'));
    expect(list.status).toBe(200);
    const page = (await list.json()) as { reports: Array<{ id: string; operation: string; paymentReference?: string; creditsUsage?: string; target: string }>; nextCursor: null };
    expect(page.nextCursor).toBeNull();
    expect(page.reports.map((r) => [r.id, r.operation, r.paymentReference, r.creditsUsage, r.target])).toEqual([
      [evmReport, 'readiness', evmTx, undefined, 'mpp evm wallet'],
      [x402Report, 'readiness', x402Tx, undefined, 'x402 wallet'],
    ]);
  });

  it('refuses a signed message sent a second time (its nonce is spent)', async () => {
    const header = await signIn(`/api/reports/${evmReport}`);
    expect((await read(`/api/reports/${evmReport}`, header)).status).toBe(200);
    await expectRefused(await read(`/api/reports/${evmReport}`, header), 'invalid_siwx_nonce');
    await expectRefused(await read('/api/reports', header), 'invalid_siwx_nonce');
  });

  it('refuses a message signed for another domain, and one whose URI is on another origin', async () => {
    const otherDomain = await signIn('/api/reports', rails.payer.privateKey, (i) => ({ ...i, domain: 'evil.example', uri: 'https://evil.example/api/reports' }));
    await expectRefused(await read('/api/reports', otherDomain), 'invalid_siwx_domain_mismatch');
    const otherUri = await signIn('/api/reports', rails.payer.privateKey, (i) => ({ ...i, uri: 'https://evil.example/api/reports' }));
    await expectRefused(await read('/api/reports', otherUri), 'invalid_siwx_uri_mismatch');
  });

  it('refuses an expired message, one issued too long ago, and one whose signature is not the address\'s', async () => {
    const past = (ms: number) => new Date(Date.now() - ms).toISOString();
    const expired = await signIn('/api/reports', rails.payer.privateKey, (i) => ({ ...i, issuedAt: past(60_000), expirationTime: past(1_000) }));
    await expectRefused(await read('/api/reports', expired), 'invalid_siwx_expired');
    const old = await signIn('/api/reports', rails.payer.privateKey, (i) => ({ ...i, issuedAt: past(6 * 60_000), expirationTime: undefined }));
    await expectRefused(await read('/api/reports', old), 'invalid_siwx_issued_at_too_old');
    // A stranger's signature over a message naming the payer's address.
    const stranger = JSON.parse(Buffer.from(await signIn('/api/reports', generatePrivateKey()), 'base64').toString()) as { address: string };
    stranger.address = rails.payer.address;
    await expectRefused(await read('/api/reports', Buffer.from(JSON.stringify(stranger)).toString('base64')), 'invalid_siwx_signature');
    const garbage = await read('/api/reports', 'not a message');
    expect(garbage.status).toBe(401);
    expect(((await garbage.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}wallet-sign-in-refused`);
  });

  it('another address signs in fine and sees none of them: 404 for the report, an empty list', async () => {
    const other = generatePrivateKey();
    const res = await read(`/api/reports/${x402Report}`, await signIn(`/api/reports/${x402Report}`, other));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}not-found`);
    const list = await read('/api/reports', await signIn('/api/reports', other));
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ reports: [], nextCursor: null });
  });

  it('a card payer keeps what it had: the 200, no report link', async () => {
    const card = Mppx.create({ polyfill: false, methods: [stripeMethods.charge({ paymentMethod: 'pm_card_visa', createToken: sptFromTestHelper(sdk) })] });
    const res = await card.fetch(`${appUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: readinessBody('card') });
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-receipt')).not.toBeNull();
    expect(res.headers.get('link')).toBeNull();
  });
});
