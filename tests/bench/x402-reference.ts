// `npm run bench -- x402-reference`: our x402 path against the x402 reference, a minimal Next.js app with
// @x402/next's withX402 on a trivial route (tests/bench/x402-reference/), both `next start` production
// builds on the same local rails and the same facilitator (behind one timing proxy), measured in one run:
//   (a) unpaid 402 throughput, alternating slices of ours and the reference's; then, for scale, the reference's
//       402 against our cheapest route (GET /api/health), what any answer of our app costs;
//   (b) paid x402 latency (PAYMENT-SIGNATURE, verify + settle on chain), sequential, alternating per request.
// The reference is installed and built by tests/support/x402-reference.ts, into its own gitignored node_modules.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { startRails } from '../../scripts/rails/start';
import { validReadinessBody } from '../support/runtime';
import { startServer } from '../support/server';
import { prepareReference, startReference } from '../support/x402-reference';
import { alternating, load, type Load } from './load';
import { timingProxy } from './payments';

const PAID_SAMPLES = Number(process.env.BENCH_PAID_SAMPLES ?? 30);
const WARMUP = 5;
const TARGET = 1.25;

const fmt = (l: Load) => `${l.rps.toFixed(0)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, errors ${l.errors}, statuses ${JSON.stringify(l.statuses)}`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function benchX402Reference(): Promise<Record<string, unknown>> {
  prepareReference();
  const rails = await startRails({ payerUsdc: 10_000 });
  const proxy = await timingProxy(rails.facilitatorUrl);
  const env = { ...rails.env, X402_FACILITATOR_URL: proxy.url };
  const ours = await startServer({ ...env, RATE_LIMIT_PER_IP: '100000000', RATE_LIMIT_PER_KEY: '100000000', LOG_LEVEL: 'silent' });
  const reference = await startReference({ X402_FACILITATOR_URL: proxy.url, PAY_TO_ADDRESS: rails.env.PAY_TO_ADDRESS });
  const body = JSON.stringify(validReadinessBody());
  const targets = { ours: `${ours.url}/api/agent/readiness`, reference: `${reference.url}/api/paid` } as const;
  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  try {
    // (a) Unpaid 402 throughput; warm both first so compilation and first-use costs stay out of the figures.
    const unpaid = (url: string) => ({ url, method: 'POST' as const, body, headers: { 'content-type': 'application/json' } });
    await load({ ...unpaid(targets.reference), duration: 2 });
    await load({ ...unpaid(targets.ours), duration: 2 });
    const [ref402, our402] = await alternating(unpaid(targets.reference), unpaid(targets.ours));
    const only402 = [ref402, our402].every((l) => Object.keys(l.statuses).every((s) => s === '402'));
    const unpaidRatio = ref402.rps / our402.rps;
    console.log(`[bench] x402 reference (@x402/next withX402, trivial route) unpaid -> 402: ${fmt(ref402)}`);
    console.log(`[bench] ours POST /api/agent/readiness unpaid -> 402 (2 MPP challenges + PAYMENT-REQUIRED): ${fmt(our402)}`);
    console.log(`[bench] unpaid 402: reference / ours throughput = ${unpaidRatio.toFixed(2)}x (target <= ${TARGET})${only402 ? '' : ' -- WARNING: not every answer was a 402'}`);
    // For scale: the reference's 402 against our cheapest route (GET /api/health: a constant JSON answer, no body,
    // no store, no payment terms), i.e. what any answer of our app costs before a paid route does anything.
    await load({ url: `${ours.url}/api/health`, duration: 2 });
    const [refAgain, ourTrivial] = await alternating(unpaid(targets.reference), { url: `${ours.url}/api/health` });
    const floorRatio = refAgain.rps / ourTrivial.rps;
    console.log(`[bench] for scale, ours GET /api/health (constant JSON): ${fmt(ourTrivial)}; reference 402 / our trivial route = ${floorRatio.toFixed(2)}x`);

    // (b) Paid x402 calls, one at a time, ours and the reference's in turn (the order flips each round).
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
    const paid = async (url: string) => {
      // The 402 and the signature are the client's business: outside the timed part.
      const challenge = await post(url);
      await challenge.arrayBuffer();
      const signature = encodePaymentSignatureHeader(await client.createPaymentPayload(decodePaymentRequiredHeader(challenge.headers.get('payment-required')!)));
      proxy.calls.length = 0;
      const started = performance.now();
      const res = await post(url, { 'payment-signature': signature });
      await res.arrayBuffer();
      const total = performance.now() - started;
      if (res.status !== 200 || !res.headers.get('payment-response')) throw new Error(`paid x402 call to ${url} answered ${res.status}`);
      const paths = proxy.calls.map((c) => c.path).sort();
      if (paths.join(',') !== '/settle,/verify') throw new Error(`expected one /verify and one /settle from ${url}, saw ${paths.join(',')}`);
      return { total, facilitator: proxy.calls.reduce((n, c) => n + c.ms, 0) };
    };
    const samples = { ours: [] as { total: number; facilitator: number }[], reference: [] as { total: number; facilitator: number }[] };
    // Each round's own ratio too: the two calls of a round share the machine's load of that moment.
    const roundRatios: number[] = [];
    const payerBefore = await rails.usdcBalance(rails.payer.address);
    for (let i = 0; i < WARMUP + PAID_SAMPLES; i++) {
      const order = i % 2 ? (['reference', 'ours'] as const) : (['ours', 'reference'] as const);
      const round: Partial<Record<keyof typeof targets, number>> = {};
      for (const side of order) {
        const s = await paid(targets[side]);
        round[side] = s.total;
        if (i >= WARMUP) samples[side].push(s);
      }
      if (i >= WARMUP) roundRatios.push(round.ours! / round.reference!);
    }
    const moved = payerBefore - (await rails.usdcBalance(rails.payer.address));
    const expected = BigInt(2 * (WARMUP + PAID_SAMPLES)) * 1_000_000n;
    const summary = (xs: { total: number; facilitator: number }[]) => ({
      total: median(xs.map((x) => x.total)),
      facilitator: median(xs.map((x) => x.facilitator)),
      own: median(xs.map((x) => x.total - x.facilitator)),
    });
    const o = summary(samples.ours);
    const r = summary(samples.reference);
    const paidRatio = o.total / r.total;
    console.log(`[bench] x402 reference paid call, ${PAID_SAMPLES} sequential: median ${r.total.toFixed(1)} ms end to end, facilitator /verify + /settle ${r.facilitator.toFixed(1)} ms, the app's own ${r.own.toFixed(1)} ms`);
    console.log(`[bench] ours paid x402 POST /api/agent/readiness, ${PAID_SAMPLES} sequential: median ${o.total.toFixed(1)} ms end to end, facilitator /verify + /settle ${o.facilitator.toFixed(1)} ms, our own ${o.own.toFixed(1)} ms`);
    console.log(`[bench] paid x402: ours / reference latency = ${paidRatio.toFixed(2)}x of the medians, ${median(roundRatios).toFixed(2)}x median of each round's ratio (target <= ${TARGET}); USDC moved ${moved === expected ? 'exactly 1 per paid call' : `WRONG: ${moved} units for ${2 * (WARMUP + PAID_SAMPLES)} calls`}`);
    if (!only402 || moved !== expected) process.exitCode = 1;
    return { unpaid: { reference: ref402, ours: our402, ratio: unpaidRatio, trivial: { reference: refAgain, ours: ourTrivial, ratio: floorRatio } }, paid: { reference: r, ours: o, ratio: paidRatio, roundRatio: median(roundRatios), samples: PAID_SAMPLES } };
  } finally {
    await reference.stop();
    await ours.stop();
    await proxy.close();
    await rails.stop();
  }
}
