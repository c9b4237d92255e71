import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { validReadinessBody } from '../support/runtime';

// The README's walk-through against the real service: `next start` on a production build.

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

let server: RunningServer;
let key: string;

async function keysCli(args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: server.dataDir, CREDITS_KEY_SECRET: TEST_SECRET, NODE_ENV: 'development' },
  });
}

const readiness = (headers: Record<string, string>, body: unknown = validReadinessBody()) =>
  fetch(`${server.url}/api/agent/readiness`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const callsLeft = async () =>
  ((await (await fetch(`${server.url}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } })).json()) as { callsLeft: number }).callsLeft;

beforeAll(async () => {
  server = await startServer();
  const created = await keysCli(['create', '--plan', 'bundle-25']);
  key = created.stdout.match(/pac_live_[0-9A-Za-z]{40}/)![0];
}, 240_000);
afterAll(() => server?.stop());

describe('walk-through on next start', () => {
  it('lists the plans without a key', async () => {
    const res = await fetch(`${server.url}/api/agent/credits`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.plans.map((p: { id: string }) => p.id)).toEqual(['bundle-25', 'bundle-100', 'subscription']);
    expect(body.plans[0]).toMatchObject({ calls: 25, price: { amount: '20.00', currency: 'USD' }, validity: '12 months', purchaseUrl: `${server.url}/pricing#bundle-25` });
  });

  it('buys an assessment with the key, replays it free, and keeps the balance across a restart', async () => {
    expect(await callsLeft()).toBe(25);
    const first = await readiness({ authorization: `Bearer ${key}`, 'idempotency-key': 'walkthrough-001' });
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body.creditsUsage).toMatch(/^cu_/);
    expect(await callsLeft()).toBe(24);

    const replay = await readiness({ authorization: `Bearer ${key}`, 'idempotency-key': 'walkthrough-001' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(body);
    expect(await callsLeft()).toBe(24);

    await server.restart();
    expect(await callsLeft()).toBe(24);
    const afterRestart = await readiness({ authorization: `Bearer ${key}`, 'idempotency-key': 'walkthrough-001' });
    expect(afterRestart.headers.get('idempotent-replayed')).toBe('true');
  }, 120_000);

  it('answers an unpaid request with 503 problem+json while no rail is configured', async () => {
    const res = await readiness({});
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect((await res.json()).title).toBe('Machine payments not available right now');
  });

  it('shows and revokes keys from the CLI, and never logs a key', async () => {
    const shown = JSON.parse((await keysCli(['show', key])).stdout);
    expect(shown.callsLeft).toBe(await callsLeft());
    expect(shown.key).toBe(`pac_live_…${key.slice(-4)}`);
    await keysCli(['revoke', key]);
    const res = await readiness({ authorization: `Bearer ${key}` });
    expect(res.status).toBe(401);
    expect(server.output()).not.toContain(key.slice('pac_live_'.length));
  });
});

describe('startup', () => {
  it('refuses to start in production without CREDITS_KEY_SECRET, naming it', async () => {
    const env = { ...server.env, CREDITS_KEY_SECRET: '' } as unknown as NodeJS.ProcessEnv;
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '-p', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(out).toMatch(/CREDITS_KEY_SECRET: required in production/);
  }, 60_000);
});
