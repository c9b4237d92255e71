// A deploy in the middle of paid work: `next start` (a production build) gets SIGTERM while prepaid visibility
// checks are in flight against a slow site. Every call must end one of two ways: fulfilled and charged once,
// or given back at once (its held call released, not left for the reservation timeout), and the process must
// exit by itself. New paid calls during the drain get 503 `shutting-down` with Retry-After.
//
// Production refuses CHECK_HOST_MAP, so tests/support/fake-internet.mjs, preloaded into the server, stands in
// for DNS and the network: the site's name resolves to a public address and its sockets reach the local fixture.
// One page answers after a delay well inside the grace; the other never answers, so only the end of the grace
// can end those calls (the check's own page timeout, 15 s, is longer than the grace, 8 s).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, balance } from '@/lib/credits/ledger';
import { auditLedger } from '@/lib/credits/audit';
import { openSqliteStore } from '@/lib/store/sqlite';
import { PROBLEM_BASE } from '@/lib/problems';
import { PAGE_TIMEOUT_MS } from '@/lib/checks/visibility/check';
import { ensureBuilt, spawnNextStart, untilHealthy, TEST_DIST_DIR, TEST_SECRET } from '../support/server';
import { onFreePort, PORT_TAKEN } from '../support/ports';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { readLedger, sleep } from './harness';

const HOST = 'slow.pac-fixture.net';
const PRELOAD = path.resolve(__dirname, '../support/fake-internet.mjs');
const GRACE_SECONDS = 8;
const SLOW_CALLS = 3;
const HANGING_CALLS = 2;
const PAGE = '<!doctype html><html><head><title>Slow shop</title><meta name="description" content="A slow page"></head><body><h1>Slow</h1><p>Hello.</p></body></html>';

let site: FixtureSite;
let child: ChildProcess;
let output: () => string;
let url: string;
let dataDir: string;

beforeAll(async () => {
  site = await startFixtureSite({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
    // Slow for the check's own fetch of the page; the access probes and the Markdown question that follow it are
    // answered at once, so a slow check takes about 2.5 s, well inside the grace.
    '/slow': (req) => ({
      delayMs: /^PaidAgentChecks\//.test(String(req.headers['user-agent'])) && req.headers.accept !== 'text/markdown' ? 2_500 : 0,
      headers: { 'content-type': 'text/html' },
      body: PAGE,
    }),
    '/hang': { hang: true },
  });
  await ensureBuilt();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-shutdown-'));
  const port = await onFreePort(async (p) => {
    const started = await spawnNextStart(p, {
      ...process.env,
      NODE_ENV: 'production',
      NEXT_DIST_DIR: TEST_DIST_DIR,
      NEXT_TELEMETRY_DISABLED: '1',
      DATA_DIR: dataDir,
      CREDITS_KEY_SECRET: TEST_SECRET,
      APP_URL: `http://127.0.0.1:${p}`,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      // Five checks of one site by one key at once: more than one caller's share of the default per-site budget.
      CHECKS_PER_SITE_PER_MINUTE: '100',
      NODE_OPTIONS: `--import ${PRELOAD}`,
      PAC_FAKE_INTERNET: JSON.stringify({ [HOST]: site.port }),
    });
    if (started === PORT_TAKEN) return PORT_TAKEN;
    child = started.child;
    output = started.output;
    await untilHealthy(child, `http://127.0.0.1:${p}`, output);
    return p;
  });
  url = `http://127.0.0.1:${port}`;
}, 900_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await site?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const visibility = (key: string, page: string) =>
  fetch(`${url}/api/agent/ai-visibility`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `http://${HOST}${page}` }),
  }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as Record<string, unknown> }));

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !done(); i++) await sleep(100);
  if (!done()) throw new Error(`timed out waiting for ${what}:\n${output()}`);
}

describe('SIGTERM with paid calls in flight', () => {
  it('finishes the calls it can, charged once, gives back the rest at once, refuses new ones with 503, and exits', async () => {
    expect(GRACE_SECONDS * 1000).toBeLessThan(PAGE_TIMEOUT_MS);
    const store = openSqliteStore(dataDir);
    try {
      const { key, keyHash } = await createKey(store, TEST_SECRET, 'bundle-25');
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

      const slow = Array.from({ length: SLOW_CALLS }, (_, i) => visibility(key, `/slow?call=${i}`));
      const hanging = Array.from({ length: HANGING_CALLS }, (_, i) => visibility(key, `/hang?call=${i}`));
      // Every call has held its prepaid call and is waiting on the site.
      // (Each page is also asked for as Markdown, at the same time: counted once per call.)
      await until('the checks to reach the site', () => new Set(site.requests.filter((r) => /^\/(slow|hang)\?call=/.test(r))).size === SLOW_CALLS + HANGING_CALLS);
      const held = await readLedger({ sqliteDir: dataDir }, keyHash);
      expect([...held.reservations.values()].filter((r) => r.state === 'held')).toHaveLength(SLOW_CALLS + HANGING_CALLS);

      child.kill('SIGTERM');
      await until('the drain to start', () => output().includes('"event":"shutdown-started"'));

      // A new paid call during the drain: refused before anything is held, to be retried elsewhere.
      const refused = await visibility(key, '/slow?call=late');
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe('5');
      expect(refused.body).toMatchObject({ type: `${PROBLEM_BASE}shutting-down`, status: 503 });
      expect(site.requests).not.toContain('/slow?call=late');

      const fulfilled = await Promise.all(slow);
      for (const answer of fulfilled) {
        expect(answer.status).toBe(200);
        expect(answer.body.creditsUsage).toMatch(/^cu_/);
      }
      const cut = await Promise.all(hanging);
      for (const answer of cut) {
        expect(answer.status).toBe(503);
        expect(answer.retryAfter).toBe('5');
        expect(answer.body).toMatchObject({ type: `${PROBLEM_BASE}shutting-down` });
      }
      expect(await exited).toBe(143);
      expect(output()).toContain(`"event":"shutdown-cut-short","calls":${HANGING_CALLS},"released":${HANGING_CALLS}`);

      // The ledger: each fulfilled call committed once, each cut call released (not left held for the timeout).
      const ledger = await readLedger({ sqliteDir: dataDir }, keyHash);
      const committed = [...ledger.reservations].filter(([, r]) => r.state === 'committed').map(([id]) => id).sort();
      expect(committed).toEqual(fulfilled.map((a) => a.body.creditsUsage as string).sort());
      expect([...ledger.reservations.values()].filter((r) => r.state === 'released')).toHaveLength(HANGING_CALLS);
      expect([...ledger.reservations.values()].filter((r) => r.state === 'held')).toHaveLength(0);
      expect(ledger.used).toBe(SLOW_CALLS);
      // Read with the hold's own clock still running: the released calls are back now, not in two minutes.
      expect((await balance(store, keyHash)).callsLeft).toBe(25 - SLOW_CALLS);
      const audit = await auditLedger(store, { now: Date.now() });
      expect(audit.discrepancies).toEqual([]);
      expect(audit.lapsedHolds).toBe(0);
    } finally {
      await store.close();
    }
  }, 300_000);
});
