// Machine-payment benchmarks, against `next start` on the local rails, each figure relative to
// something measured in the same run:
//   (a) the unpaid 402 path (both MPP challenges + PAYMENT-REQUIRED) vs the trivial JSON route, same server;
//   (b) a paid MPP evm request's latency minus the facilitator's own /verify + /settle time, measured by a
//       timing proxy in front of the facilitator: what the service itself adds to a paid request.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Mppx, evm } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { startRails } from '../../scripts/rails/start';
import { validReadinessBody } from '../support/runtime';
import { startServer } from '../support/server';
import { alternating, load, type Load } from './load';

const PAID_SAMPLES = Number(process.env.BENCH_PAID_SAMPLES ?? 30);

const fmt = (l: Load) => `${l.rps.toFixed(0)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, errors ${l.errors}, statuses ${JSON.stringify(l.statuses)}`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** (a) Throughput of the unpaid 402 on POST /api/agent/readiness vs GET /api/health, same server and load. */
export async function benchUnpaidChallenge(): Promise<Record<string, unknown>> {
  const rails = await startRails();
  const server = await startServer({ ...rails.env, RATE_LIMIT_PER_IP: '100000000', RATE_LIMIT_PER_KEY: '100000000', LOG_LEVEL: 'silent' });
  try {
    const health = { url: `${server.url}/api/health` };
    const unpaid = {
      url: `${server.url}/api/agent/readiness`,
      method: 'POST' as const,
      body: JSON.stringify(validReadinessBody()),
      headers: { 'content-type': 'application/json' },
    };
    // Warm both routes so compilation and first-use costs stay out of the figures.
    await load({ ...health, duration: 2 });
    await load({ ...unpaid, duration: 2 });
    const [baseline, challenge] = await alternating(health, unpaid);
    const only402 = Object.keys(challenge.statuses).every((s) => s === '402');
    const ratio = challenge.rps / baseline.rps;
    console.log(`[bench] trivial JSON route (baseline, rails configured): ${fmt(baseline)}`);
    console.log(`[bench] POST /api/agent/readiness unpaid -> 402 with 2 MPP challenges + PAYMENT-REQUIRED: ${fmt(challenge)}`);
    console.log(`[bench] unpaid 402 / trivial throughput ratio: ${ratio.toFixed(2)} (target >= 0.65)${only402 ? '' : ' -- WARNING: not every answer was a 402'}`);
    if (!only402) process.exitCode = 1;
    return { baseline, challenge, ratio };
  } finally {
    await server.stop();
    await rails.stop();
  }
}

/**
 * A pass-through HTTP proxy in front of the facilitator that records how long each call took, from its side.
 * @example const proxy = await timingProxy(rails.facilitatorUrl); // point the server at proxy.url
 */
export async function timingProxy(target: string): Promise<{ url: string; calls: { path: string; ms: number }[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const calls: { path: string; ms: number }[] = [];
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => calls.push({ path: req.url ?? '', ms: performance.now() - started }));
      },
    );
    forward.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** (b) Our own overhead on a paid MPP evm request: its latency minus the facilitator's verify + settle time. */
export async function benchPaidOverhead(): Promise<Record<string, unknown>> {
  const rails = await startRails({ payerUsdc: 10_000 });
  const proxy = await timingProxy(rails.facilitatorUrl);
  const server = await startServer({
    ...rails.env,
    X402_FACILITATOR_URL: proxy.url,
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_KEY: '100000000',
    LOG_LEVEL: 'silent',
  });
  const client = Mppx.create({
    polyfill: false,
    methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })],
  });
  const url = `${server.url}/api/agent/readiness`;
  const body = JSON.stringify(validReadinessBody());
  const post = (headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  try {
    const totals: number[] = [];
    const facilitator: number[] = [];
    const overheads: number[] = [];
    const payerBefore = await rails.usdcBalance(rails.payer.address);
    const WARMUP = 5;
    for (let i = 0; i < WARMUP + PAID_SAMPLES; i++) {
      // The 402 and the signature are the client's business: outside the timed part.
      const credential = await client.createCredential(await post());
      proxy.calls.length = 0;
      const started = performance.now();
      const res = await post({ authorization: credential });
      await res.arrayBuffer();
      const total = performance.now() - started;
      if (res.status !== 200) throw new Error(`paid request answered ${res.status}`);
      const paths = proxy.calls.map((c) => c.path).sort();
      if (paths.join(',') !== '/settle,/verify') throw new Error(`expected one /verify and one /settle, saw ${paths.join(',')}`);
      const spent = proxy.calls.reduce((n, c) => n + c.ms, 0);
      if (i < WARMUP) continue;
      totals.push(total);
      facilitator.push(spent);
      overheads.push(total - spent);
    }
    const moved = payerBefore - (await rails.usdcBalance(rails.payer.address));
    const expected = BigInt(WARMUP + PAID_SAMPLES) * 1_000_000n;
    const m = { total: median(totals), facilitator: median(facilitator), overhead: median(overheads), p90: [...overheads].sort((a, b) => a - b)[Math.floor(overheads.length * 0.9)]! };
    console.log(`[bench] paid MPP evm POST /api/agent/readiness, ${PAID_SAMPLES} sequential requests: median ${m.total.toFixed(1)} ms end to end, of which the facilitator's /verify + /settle ${m.facilitator.toFixed(1)} ms (timed at a proxy in front of it)`);
    console.log(`[bench] paid evm request, our own overhead (latency minus facilitator verify+settle): median ${m.overhead.toFixed(1)} ms, p90 ${m.p90.toFixed(1)} ms (target <= 12 ms median); USDC moved ${moved === expected ? 'exactly 1 per request' : `WRONG: ${moved} units for ${WARMUP + PAID_SAMPLES} requests`}`);
    if (moved !== expected) process.exitCode = 1;
    return { ...m, samples: PAID_SAMPLES };
  } finally {
    await server.stop();
    await proxy.close();
    await rails.stop();
  }
}
