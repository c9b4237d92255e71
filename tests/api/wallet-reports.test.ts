// A wallet that paid reads its reports back with Sign-In-With-X: the readiness route and the reports routes
// served in-process over node:http, paid on the local rails by real clients (@x402/fetch, mppx evm and card),
// and read with a SIGN-IN-WITH-X header signed by the paying anvil account (@x402/extensions createSIWxPayload)
// over the message a 401 of the same request offers. A message signs in the one request it names (method and
// path), with a nonce the service issued for it, once.
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createSIWxMessage, createSIWxPayload, encodeSIWxHeader, type SIWxExtensionInfo } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import type Stripe from 'stripe';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as listRoute } from '@/app/api/reports/route';
import { GET as reportRoute } from '@/app/api/reports/[id]/route';
import { DELETE as unshareRoute, POST as shareRoute } from '@/app/api/reports/[id]/share/route';
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
    const shared = /^\/api\/reports\/([^/]+)\/share$/.exec(pathname)?.[1];
    if (request.method === 'POST' && shared) return shareRoute(request, { params: Promise.resolve({ id: shared }) });
    if (request.method === 'DELETE' && shared) return unshareRoute(request, { params: Promise.resolve({ id: shared }) });
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

/** The wallet challenge a 401 offers for `method` `path` (the request sent without credentials). */
async function challengeFor(path: string, method = 'GET'): Promise<Unauthorized['extensions']['sign-in-with-x']> {
  const res = await fetch(`${appUrl}${path}`, { method });
  expect(res.status).toBe(401);
  const body = (await res.json()) as Unauthorized;
  expect(body.type).toBe(`${PROBLEM_BASE}not-signed-in`);
  return body.extensions['sign-in-with-x'];
}

/** `info` signed by `privateKey` as it stands, however it was edited: an attacker's or a careless client's message. */
async function signedAsIs(info: SIWxExtensionInfo, chain: { chainId: string; type: 'eip191' }, privateKey = rails.payer.privateKey): Promise<string> {
  const account = privateKeyToAccount(privateKey);
  const edited = { ...info, ...chain };
  const signature = await account.signMessage({ message: createSIWxMessage(edited, account.address) });
  return encodeSIWxHeader({ ...edited, address: account.address, signature });
}

/**
 * A SIGN-IN-WITH-X header for `method` `path`, signed by `privateKey` over the server's challenge for it: as a
 * client signs it (createSIWxPayload, which also refuses a challenge bound to another origin), or edited by
 * `change` first and signed as it stands.
 */
async function signIn(path: string, privateKey = rails.payer.privateKey, change?: (info: SIWxExtensionInfo) => SIWxExtensionInfo, method = 'GET'): Promise<string> {
  const { info, supportedChains } = await challengeFor(path, method);
  if (change) return signedAsIs(change(info), supportedChains[0]!, privateKey);
  return encodeSIWxHeader(await createSIWxPayload({ ...info, ...supportedChains[0] }, privateKeyToAccount(privateKey), `${appUrl}${path}`));
}

const read = (path: string, header: string) => fetch(`${appUrl}${path}`, { headers: { 'SIGN-IN-WITH-X': header } });
const send = (method: string, path: string, header: string) => fetch(`${appUrl}${path}`, { method, headers: { 'SIGN-IN-WITH-X': header } });

const AGAIN = 'Send this request without credentials for a fresh message (a nonce issued for it), sign it as it stands and send it base64 in the SIGN-IN-WITH-X header.';

/** A 401 wallet-sign-in-refused problem with this reason; its detail, for the cases that check it. */
async function expectRefused(res: Response, reason: string): Promise<string> {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = (await res.json()) as { type: string; reason: string; detail: string };
  expect(body.type).toBe(`${PROBLEM_BASE}wallet-sign-in-refused`);
  expect(body.reason).toBe(reason);
  return body.detail;
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

  it('answers 401 without a credential, with a fresh wallet challenge bound to this origin, method and path', async () => {
    const first = await challengeFor('/api/reports');
    const second = await challengeFor('/api/reports');
    const origin = new URL(appUrl);
    expect(first.info).toMatchObject({
      domain: origin.host,
      uri: `${origin.origin}/api/reports`,
      statement: 'Read the reports this wallet paid for: GET /api/reports',
      version: '1',
      resources: [`${origin.origin}/api/reports`],
    });
    const share = await challengeFor(`/api/reports/${x402Report}/share`, 'POST');
    expect(share.info).toMatchObject({
      uri: `${origin.origin}/api/reports/${x402Report}/share`,
      statement: `Make a public link to a report this wallet paid for: POST /api/reports/${x402Report}/share`,
      resources: [`${origin.origin}/api/reports/${x402Report}/share`],
    });
    const unshare = await challengeFor(`/api/reports/${x402Report}/share`, 'DELETE');
    expect(unshare.info.statement).toBe(`Stop the public link to a report this wallet paid for: DELETE /api/reports/${x402Report}/share`);
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
    const page = (await list.json()) as { reports: Array<{ id: string; check: string; paymentReference?: string; creditsUsage?: string; target: string }>; nextCursor: null };
    expect(page.nextCursor).toBeNull();
    expect(page.reports.map((r) => [r.id, r.check, r.paymentReference, r.creditsUsage, r.target])).toEqual([
      [evmReport, 'readiness', evmTx, undefined, 'mpp evm wallet'],
      [x402Report, 'readiness', x402Tx, undefined, 'x402 wallet'],
    ]);
  });

  it('refuses a signed message sent a second time (its nonce is spent), and at any other request', async () => {
    const header = await signIn(`/api/reports/${evmReport}`);
    expect((await read(`/api/reports/${evmReport}`, header)).status).toBe(200);
    await expectRefused(await read(`/api/reports/${evmReport}`, header), 'invalid_siwx_nonce');
    await expectRefused(await read('/api/reports', header), 'invalid_siwx_request_mismatch');
  });

  it('an issued nonce signs in once: a new message signed over the same nonce is refused', async () => {
    const { info, supportedChains } = await challengeFor('/api/reports');
    expect((await read('/api/reports', await signedAsIs(info, supportedChains[0]!))).status).toBe(200);
    const again = await signedAsIs({ ...info, issuedAt: new Date().toISOString() }, supportedChains[0]!);
    const detail = await expectRefused(await read('/api/reports', again), 'invalid_siwx_nonce');
    expect(detail).toBe(`This nonce was not issued by this service for GET /api/reports, or it was already used or has expired. ${AGAIN}`);
  });

  it('refuses a nonce the client chose, and one issued for another request, whatever the message says', async () => {
    const chosen = await signIn('/api/reports', rails.payer.privateKey, (i) => ({ ...i, nonce: randomBytes(16).toString('hex') }));
    const detail = await expectRefused(await read('/api/reports', chosen), 'invalid_siwx_nonce');
    expect(detail).toBe(`This nonce was not issued by this service for GET /api/reports, or it was already used or has expired. ${AGAIN}`);

    // The list's nonce in a message for one report, exactly as that report's 401 would word it.
    const { info: reportInfo, supportedChains } = await challengeFor(`/api/reports/${x402Report}`);
    const listNonce = (await challengeFor('/api/reports')).info.nonce;
    const borrowed = await signedAsIs({ ...reportInfo, nonce: listNonce }, supportedChains[0]!);
    await expectRefused(await read(`/api/reports/${x402Report}`, borrowed), 'invalid_siwx_nonce');
    // The report's own nonce was never spent: its message still signs in.
    expect((await read(`/api/reports/${x402Report}`, await signedAsIs(reportInfo, supportedChains[0]!))).status).toBe(200);
  });

  it('a message signed to read reports neither makes nor stops a public link (401, nothing shared); one signed for each does', async () => {
    const sharePath = `/api/reports/${x402Report}/share`;
    const reading = await signIn('/api/reports');
    const mismatch = (method: string, statement: string) =>
      `This message signs in for another request than ${method} ${sharePath}: its uri and resources must be ${appUrl}${sharePath} and its statement "${statement}". ${AGAIN}`;
    expect(await expectRefused(await send('POST', sharePath, reading), 'invalid_siwx_request_mismatch')).toBe(
      mismatch('POST', `Make a public link to a report this wallet paid for: POST ${sharePath}`),
    );
    expect(await expectRefused(await send('DELETE', sharePath, reading), 'invalid_siwx_request_mismatch')).toBe(
      mismatch('DELETE', `Stop the public link to a report this wallet paid for: DELETE ${sharePath}`),
    );
    // Refused before its nonce was spent: the message still reads what it was signed for.
    expect((await read('/api/reports', reading)).status).toBe(200);
    // A message signed for the read of this report, its statement edited to name the share, is refused as well.
    const edited = await signIn(`/api/reports/${x402Report}`, rails.payer.privateKey, (i) => ({ ...i, statement: `Make a public link to a report this wallet paid for: POST ${sharePath}` }));
    await expectRefused(await send('POST', sharePath, edited), 'invalid_siwx_request_mismatch');

    const shared = await send('POST', sharePath, await signIn(sharePath, rails.payer.privateKey, undefined, 'POST'));
    expect(shared.status).toBe(200);
    const link = (await shared.json()) as { url: string; path: string };
    expect(link.path).toMatch(/^\/r\/shr_[A-Za-z0-9_-]{32}$/);
    expect(link.url).toBe(`${appUrl}${link.path}`);
    const unshared = await send('DELETE', sharePath, await signIn(sharePath, rails.payer.privateKey, undefined, 'DELETE'));
    expect(unshared.status).toBe(204);
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
