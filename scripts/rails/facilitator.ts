// A real x402 facilitator (the exact EVM scheme of @x402/evm, on @x402/core's x402Facilitator) served over
// HTTP with the three endpoints the x402 HTTP facilitator clients call: POST /verify, POST /settle,
// GET /supported. It signs settlement transactions with a viem wallet on the local chain.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, http, nonceManager, publicActions, type Chain, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { actOutFault, lateness, type ProcessorFault } from './faults';

/** Fault injection for tests (see faults.ts); `error500` answers 500 to /verify and /settle. */
export type FacilitatorFault = ProcessorFault;

export interface FacilitatorHandle {
  url: string;
  address: Hex;
  /** `only` limits the fault to one endpoint, e.g. '/settle' to fail after a successful verify. */
  setFault(fault: FacilitatorFault, only?: '/verify' | '/settle'): void;
  stop(): Promise<void>;
}

export async function startFacilitator(options: {
  chain: Chain;
  rpcUrl: string;
  privateKey: Hex;
  port?: number;
  /** More chains it settles on with the same key (the probe's test network), each with its own signer. */
  moreChains?: ReadonlyArray<{ chain: Chain; rpcUrl: string }>;
}): Promise<FacilitatorHandle> {
  const facilitator = new x402Facilitator();
  let address: Hex | undefined;
  for (const { chain, rpcUrl } of [{ chain: options.chain, rpcUrl: options.rpcUrl }, ...(options.moreChains ?? [])]) {
    // A nonce manager keeps concurrent settlements from reusing the signer's transaction nonce (it counts per chain).
    const account = privateKeyToAccount(options.privateKey, { nonceManager });
    address = account.address;
    const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) }).extend(publicActions);
    const signer = toFacilitatorEvmSigner(
      {
        address: account.address,
        readContract: (args) => wallet.readContract(args as never),
        verifyTypedData: (args) => wallet.verifyTypedData(args as never),
        writeContract: (args) => wallet.writeContract(args as never),
        sendTransaction: (args) => wallet.sendTransaction(args as never),
        waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
        getCode: (args) => wallet.getCode(args),
      },
      { confirmationTimeoutMs: 30_000 },
    );
    registerExactEvmScheme(facilitator, { signer, networks: `eip155:${chain.id}` });
  }

  let fault: FacilitatorFault = null;
  let faultOnly: string | undefined;
  const faultFor = (req: IncomingMessage): FacilitatorFault =>
    faultOnly === undefined || new URL(req.url ?? '/', 'http://facilitator').pathname === faultOnly ? fault : null;
  const server: Server = createServer((req, res) => {
    if (actOutFault(faultFor(req), req, res)) return;
    void handle(req, res).catch((error: unknown) => {
      send(res, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://facilitator');
    if (req.method === 'GET' && url.pathname === '/supported') return send(res, 200, facilitator.getSupported());
    if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { ok: true });
    if (req.method !== 'POST' || (url.pathname !== '/verify' && url.pathname !== '/settle'))
      return send(res, 404, { error: 'not found' });
    if (faultFor(req) === 'error500') return send(res, 500, { error: 'facilitator fault injected by the local rails' });
    const late = lateness(faultFor(req));
    const text = await readBody(req);
    await late;
    const body = JSON.parse(text) as { paymentPayload?: unknown; paymentRequirements?: unknown };
    if (!body.paymentPayload || !body.paymentRequirements)
      return send(res, 400, { error: 'paymentPayload and paymentRequirements are required' });
    const payload = body.paymentPayload as Parameters<x402Facilitator['verify']>[0];
    const requirements = body.paymentRequirements as Parameters<x402Facilitator['verify']>[1];
    const result =
      url.pathname === '/verify'
        ? await facilitator.verify(payload, requirements)
        : await facilitator.settle(payload, requirements);
    return send(res, 200, result);
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    address: address!,
    setFault(next, only) {
      fault = next;
      faultOnly = only;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
