// `npm run bench -- payment-endpoint`: the endpoint check's wall time against the requests it waits on. Its probes
// are sequential (each reads the answer before it) so the sum of its requests' times is its dependent chain; what
// the check adds on top is its own work: decoding, validating, signing, reading the chain. Measured against this
// service as seller on the local rails, each answer held LATENCY ms as a seller across a real network would be,
// without and with a paid round trip, in one run.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { checkPaymentEndpoint } from '@/lib/checks/payment-endpoint/check';
import { probeSettings } from '@/lib/checks/payment-endpoint/probe-settings';
import { startRails } from '../../scripts/rails/start';
import { startSeller } from '../payment-endpoint/seller';

const RUNS = Number(process.env.BENCH_ENDPOINT_RUNS ?? 8);
const TARGET = 1.15;
const LATENCY = 50;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function benchPaymentEndpoint(): Promise<Record<string, unknown>> {
  const rails = await startRails();
  const seller = await startSeller(rails, {
    env: { RATE_LIMIT_PER_KEY: '100000' },
    tamper: async (request, next) => {
      await new Promise((resolve) => setTimeout(resolve, LATENCY));
      return next(request);
    },
  });
  const probeKey = generatePrivateKey();
  await rails.mintUsdc(privateKeyToAccount(probeKey).address, BigInt(RUNS + 1) * 10_000_000n);
  const probe = {
    ...probeSettings({}),
    privateKey: probeKey,
    networks: ['eip155:8453'],
    rpcUrls: { 'eip155:8453': rails.rpcUrl },
    maxSpendUnits: 10_000_000n,
    dailySpendUnits: BigInt(RUNS + 1) * 10_000_000n,
    ledger: seller.rt.store,
  };
  const input = { url: `${seller.origin}/api/agent/readiness`, method: 'POST' as const, mcp: { url: `${seller.origin}/api/mcp`, tool: 'agent_payment_readiness_assessment' } };
  const results: Record<string, unknown> = {};
  try {
    for (const paidRoundTrip of [false, true]) {
      const ratios: number[] = [];
      const walls: number[] = [];
      const counts: number[] = [];
      for (let i = 0; i < RUNS + 1; i++) {
        const t = performance.now();
        const report = await checkPaymentEndpoint({ ...input, paidRoundTrip }, { probe });
        const wall = performance.now() - t;
        const chain = report.requests.reduce((n, r) => n + r.ms, 0);
        if (i === 0) continue; // warm-up: module loading and the first connections
        ratios.push(wall / chain);
        walls.push(wall);
        counts.push(report.requests.length);
      }
      const label = paidRoundTrip ? 'with a paid round trip' : 'without paying';
      console.log(`[bench] payment-endpoint ${label}: ${median(walls).toFixed(0)} ms wall, ${median(counts)} requests, each answer held ${LATENCY} ms (median of ${RUNS})`);
      console.log(`[bench] payment-endpoint ${label}: wall time / sum of its dependent requests: ${median(ratios).toFixed(2)} (target <= ${TARGET})`);
      results[paidRoundTrip ? 'paid' : 'unpaid'] = { wallMs: median(walls), requests: median(counts), ratio: median(ratios) };
    }
  } finally {
    await seller.close();
    await rails.stop();
  }
  return results;
}
