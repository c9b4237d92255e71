// The directory listing status a facilitator reports to the seller (EXTENSION-RESPONSES on its /verify and
// /settle answers), as the operator sees it. The local facilitator is real; a proxy in front of it adds the header
// each test asks for to its answers, as a facilitator running a directory would. Real x402 payments (@x402/fetch)
// and an MPP evm payment go through the readiness route in-process; the test then reads the stored status, the
// `npm run ledger -- listing` output (the CLI as a process), the pac_directory_listing exposition and the log.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type Stripe from 'stripe';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { metrics } from '@/lib/metrics';
import { listDirectoryListings } from '@/lib/payments/listing';
import { railsFor } from '@/lib/runtime';
import { startRails, type Rails } from '../../scripts/rails/start';
import { validReadinessBody, type TestRuntime } from '../support/runtime';
import { serveWebHandler, type WebServer } from '../support/web-server';
import { agentCheckRoute } from '../support/check-routes';
import { installRailsRuntime } from '../support/rails-runtime';
import { readinessPayer } from '../support/readiness-payer';

const { POST: readinessPOST } = agentCheckRoute('readiness');
const APP_URL = 'http://localhost:3000';
const RESOURCE = `${APP_URL}/api/agent/readiness`;
const ONE_USDC = 1_000_000n;
const ROOT = path.resolve(__dirname, '../..');

let rails: Rails;
let rt: TestRuntime;
let facilitator: WebServer;
/** The EXTENSION-RESPONSES value the proxy adds to each endpoint's answers (none when undefined). */
const added: { verify?: string; settle?: string } = {};

/** The paymentPayload of each verify and settle the facilitator was sent, in order. */
const sent: Array<{ path: string; paymentPayload: { resource?: { url?: string }; extensions?: Record<string, unknown> } }> = [];

const header = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const bazaar = (status: string, rejectedReason?: string) => header({ bazaar: rejectedReason === undefined ? { status } : { status, rejectedReason } });

beforeAll(async () => {
  rails = await startRails();
  const upstream = rails.env.X402_FACILITATOR_URL!;
  facilitator = await serveWebHandler(async (request) => {
    const { pathname } = new URL(request.url);
    const body = request.method === 'POST' ? await request.text() : undefined;
    if (body !== undefined && (pathname === '/verify' || pathname === '/settle')) sent.push({ path: pathname, paymentPayload: JSON.parse(body).paymentPayload });
    const answer = await fetch(`${upstream}${pathname}`, { method: request.method, headers: { 'content-type': 'application/json' }, body });
    const headers = new Headers({ 'content-type': 'application/json' });
    const extension = pathname === '/verify' ? added.verify : pathname === '/settle' ? added.settle : undefined;
    if (extension !== undefined) headers.set('EXTENSION-RESPONSES', extension);
    return new Response(await answer.text(), { status: answer.status, headers });
  });
  rt = installRailsRuntime(rails, { APP_URL, RATE_LIMIT_PER_IP: '100000', X402_FACILITATOR_URL: facilitator.url });
}, 120_000);

afterAll(async () => {
  await rt?.dispose();
  await facilitator?.close();
  await rails?.stop();
});

beforeEach(() => {
  delete added.verify;
  delete added.settle;
});

let payer: Hex;
async function payerWithFunds(): Promise<Hex> {
  payer ??= generatePrivateKey();
  await rails.mintUsdc(privateKeyToAccount(payer).address, 2n * ONE_USDC);
  return payer;
}

const routeFetch: typeof fetch = async (input, init) => readinessPOST(new Request(input, init));
let calls = 0;

/** One readiness call paid by a real x402 client; resolves to its status. */
async function payX402(): Promise<number> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(await payerWithFunds()) });
  const response = await wrapFetchWithPayment(routeFetch, client)(RESOURCE, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.61' },
    body: JSON.stringify(validReadinessBody({ workflow: { name: `Listed call ${++calls}`, intendedUsers: 'agents', targetEnvironment: 'production' } })),
  });
  await response.arrayBuffer();
  return response.status;
}

const stored = async () => (await listDirectoryListings(rt.store, Date.now())).filter((l) => l.resource === RESOURCE && l.facilitator === facilitator.url);
const listingLogs = (status?: string) =>
  rt.logs.filter((e) => e.event === 'directory-listing' && (status === undefined || e.status === status));

async function exposition(): Promise<string[]> {
  const text = await metrics().registry.getSingleMetricAsString('pac_directory_listing');
  return text.split('\n').filter((line) => line.startsWith('pac_directory_listing{') && line.includes(`facilitator="${facilitator.url}"`));
}
const series = (status: string, value: 0 | 1) => `pac_directory_listing{resource="${RESOURCE}",facilitator="${facilitator.url}",status="${status}"} ${value}`;

describe('directory listing status from the facilitator', () => {
  it('processing on verify, then success on settle: the store keeps success (via settle), the gauge moves its 1, each change is logged once', async () => {
    added.verify = bazaar('processing');
    added.settle = bazaar('success');
    const logsBefore = listingLogs().length;
    expect(await payX402()).toBe(200);

    const [listing, ...more] = await stored();
    expect(more).toEqual([]);
    expect(listing).toMatchObject({ resource: RESOURCE, facilitator: facilitator.url, status: 'success', reason: null, via: 'settle' });
    expect(Math.abs(Date.now() - listing.seenAt)).toBeLessThan(60_000);
    expect(listingLogs().slice(logsBefore).map((e) => [e.status, e.was, e.via])).toEqual([
      ['processing', null, 'verify'],
      ['success', 'processing', 'settle'],
    ]);
    expect((await exposition()).sort()).toEqual([series('none', 0), series('processing', 0), series('rejected', 0), series('success', 1)].sort());
  }, 120_000);

  it('rejected twice in a row is logged once, with its reason; a change and a new rejection are logged again; the ledger shows the reason', async () => {
    const rejectedBefore = listingLogs('rejected').length;
    added.verify = bazaar('rejected', 'missing input schema');
    added.settle = bazaar('rejected', 'missing input schema');
    expect(await payX402()).toBe(200);
    expect(await payX402()).toBe(200);
    const once = listingLogs('rejected').slice(rejectedBefore);
    expect(once).toHaveLength(1);
    expect(once[0]).toMatchObject({ event: 'directory-listing', resource: RESOURCE, facilitator: facilitator.url, status: 'rejected', reason: 'missing input schema', was: 'success' });
    expect(await stored()).toMatchObject([{ status: 'rejected', reason: 'missing input schema' }]);
    expect(await exposition()).toContain(series('rejected', 1));
    expect(await exposition()).toContain(series('success', 0));

    // The operator's view, from the CLI as a process against the same store.
    const cli = await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/ledger.ts', 'listing'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: rt.config.DATA_DIR, CREDITS_KEY_SECRET: rt.config.CREDITS_KEY_SECRET, LOG_LEVEL: 'silent' },
    });
    const lines = cli.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Directory listing, as each facilitator last said/);
    const [seen] = await stored();
    expect(lines.slice(1)).toEqual([
      JSON.stringify({ resource: RESOURCE, facilitator: facilitator.url, status: 'rejected', reason: 'missing input schema', seenAt: new Date(seen.seenAt).toISOString(), via: 'verify' }),
    ]);

    // Listed again, then rejected for another reason: both changes logged, the second rejection once more.
    added.verify = bazaar('success');
    added.settle = bazaar('success');
    expect(await payX402()).toBe(200);
    added.verify = bazaar('rejected', 'description too long');
    added.settle = bazaar('rejected', 'description too long');
    expect(await payX402()).toBe(200);
    expect(listingLogs('rejected').slice(rejectedBefore).map((e) => e.reason)).toEqual(['missing input schema', 'description too long']);
    expect(await stored()).toMatchObject([{ status: 'rejected', reason: 'description too long' }]);

    // A restarted service (new rails on the same store) knows the rejection was already logged.
    rt.rails = railsFor(rt.config, rt.store, (event) => rt.log(event));
    expect(await payX402()).toBe(200);
    expect(listingLogs('rejected').slice(rejectedBefore)).toHaveLength(2);
  }, 180_000);

  it('an MPP evm payment goes through the same facilitator and is heard too; an EXTENSION-RESPONSES without bazaar is `none`', async () => {
    added.verify = header({});
    added.settle = header({});
    const { readiness, body, evmCredential } = readinessPayer(readinessPOST, APP_URL, '198.51.100.62', () => ({}) as Stripe);
    const paid = await readiness(body('MPP evm, heard'), { authorization: await evmCredential(await payerWithFunds()) });
    expect(paid.status).toBe(200);
    expect(await stored()).toMatchObject([{ status: 'none', reason: null, via: 'verify' }]);
    expect(await exposition()).toContain(series('none', 1));
    expect(await exposition()).toContain(series('rejected', 0));
  }, 120_000);

  it.each([
    ['not base64', '%%% not base64 %%%'],
    ['base64 of text that is not JSON', Buffer.from('listed, probably').toString('base64')],
    ['a JSON array', header([{ bazaar: { status: 'success' } }])],
    ['an unknown status', header({ bazaar: { status: 'listed' } })],
    ['a reason that is not text', header({ bazaar: { status: 'rejected', rejectedReason: 42 } })],
  ])('a malformed header (%s) is ignored: the payment succeeds, the status stays, nothing is logged', async (_, value) => {
    const before = await stored();
    expect(before).toHaveLength(1);
    const logsBefore = listingLogs().length;
    added.verify = value;
    added.settle = value;
    expect(await payX402()).toBe(200);
    expect(await stored()).toEqual(before);
    expect(listingLogs()).toHaveLength(logsBefore);
  }, 120_000);

  it("sends the facilitator the resource and extensions the buyer's x402 payment echoed, so a directory can list it (mppx alone sends neither)", async () => {
    sent.length = 0;
    expect(await payX402()).toBe(200);
    expect(sent.map((s) => s.path)).toEqual(['/verify', '/settle']);
    for (const { paymentPayload } of sent) {
      expect(paymentPayload.resource?.url).toBe(RESOURCE);
      expect(Object.keys(paymentPayload.extensions ?? {}).sort()).toEqual(['bazaar', 'mppx', 'payment-identifier']);
    }
  });
});
