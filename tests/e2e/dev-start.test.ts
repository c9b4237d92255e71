import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, onFreePort, PORT_TAKEN, untilListening } from '../support/ports';
import { validReadinessBody } from '../support/runtime';

// The README's first command, `npm run dev`, on an empty store: it prints a demo key once, and
// the walk-through works with it.

const ROOT = path.resolve(__dirname, '../..');
let child: ChildProcess | undefined;
afterAll(() => child?.kill('SIGTERM'));

function startDev(dataDir: string, port: number) {
  // A newcomer's shell has no NODE_ENV; `next dev` sets development itself.
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, PORT: String(port), NEXT_DIST_DIR: '.next-dev-test', NEXT_TELEMETRY_DISABLED: '1' };
  delete env.NODE_ENV;
  const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  return { proc, output: () => output };
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 120_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('npm run dev', () => {
  it('mints and prints a demo key on an empty store, and only then', async () => {
    // A fresh store per attempt: the key is minted only on an empty one, before next dev binds its port.
    const { dataDir, port, dev } = await onFreePort(async (candidate) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-dev-'));
      const started = startDev(dir, candidate);
      child = started.proc;
      const listening = new RegExp(`Local:\\s+http://localhost:${candidate}\\b`);
      if ((await untilListening(started.proc, started.output, listening, /EADDRINUSE/, 120_000)) === PORT_TAKEN) return PORT_TAKEN;
      return { dataDir: dir, port: candidate, dev: started };
    });
    await waitFor(() => /export KEY=pac_live_/.test(dev.output()), 'the demo key');
    const key = dev.output().match(/export KEY=(pac_live_[0-9A-Za-z]{40})/)![1];
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.ok ?? false, 'next dev');

    const res = await fetch(`http://127.0.0.1:${port}/api/agent/readiness`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'readme-walkthrough-1' },
      body: JSON.stringify(validReadinessBody()),
    });
    expect(res.status).toBe(200);
    const credits = await (await fetch(`http://127.0.0.1:${port}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(credits.callsLeft).toBe(24);

    // The local rails came up by themselves: an unpaid request gets the 402 with every rail's terms.
    const unpaid = await fetch(`http://127.0.0.1:${port}/api/agent/readiness`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(validReadinessBody()),
    });
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('www-authenticate')).toMatch(/Payment .*method="stripe".*Payment .*method="evm"|Payment .*method="evm".*Payment .*method="stripe"/s);
    expect(unpaid.headers.get('payment-required')).toBeTruthy();

    const stopped = new Promise((r) => dev.proc.once('exit', r));
    dev.proc.kill('SIGTERM');
    await stopped;
    const again = startDev(dataDir, await freePort());
    child = again.proc;
    await waitFor(() => /Store: sqlite/.test(again.output()), 'the second start');
    expect(again.output()).not.toMatch(/export KEY=/);
  }, 240_000);
});
