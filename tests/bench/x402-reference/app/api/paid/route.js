// The reference: @x402/next's withX402 around a trivial JSON answer, 1 USD in USDC on Base (eip155:8453),
// verified and settled by the facilitator at X402_FACILITATOR_URL (the bench's local rails).
import { NextResponse } from 'next/server';
import { withX402, x402ResourceServer } from '@x402/next';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { registerExactEvmScheme } from '@x402/evm/exact/server';

let paid;

// Built on the first request: the environment is the running server's, not the build's.
function handler() {
  if (paid) return paid;
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: process.env.X402_FACILITATOR_URL }));
  registerExactEvmScheme(server);
  paid = withX402(
    async (request) => {
      const body = await request.json();
      return NextResponse.json({ ok: true, fields: Object.keys(body).length });
    },
    {
      accepts: { scheme: 'exact', price: '$1.00', network: 'eip155:8453', payTo: process.env.PAY_TO_ADDRESS },
      description: 'x402 reference route',
    },
    server,
  );
  return paid;
}

export function POST(request) {
  return handler()(request);
}
