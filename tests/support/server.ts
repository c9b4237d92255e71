import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './redis-server';

// Runs the real service (`next start` on a production build) for end-to-end tests.

const ROOT = path.resolve(__dirname, '../..');
export const TEST_DIST_DIR = '.next-test';
const NEXT_BIN = path.join(ROOT, 'node_modules/next/dist/bin/next');

/** Builds once per test run, across the worker processes of that run. */
export async function ensureBuilt(): Promise<void> {
  const token = process.env.PAC_BUILD_TOKEN ?? 'manual';
  const marker = path.join(ROOT, TEST_DIST_DIR, 'PAC_BUILD_TOKEN');
  const lock = path.join(ROOT, `${TEST_DIST_DIR}.lock`);
  const built = () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === token;
  for (;;) {
    if (built()) return;
    try {
      fs.mkdirSync(lock);
    } catch {
      // Another worker is building; a lock older than 5 minutes belongs to a dead run.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (built()) return;
      const result = spawnSync(process.execPath, [NEXT_BIN, 'build'], {
        cwd: ROOT,
        env: { ...process.env, NEXT_DIST_DIR: TEST_DIST_DIR, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
        encoding: 'utf8',
      });
      if (result.status !== 0) throw new Error(`next build failed:\n${result.stdout}\n${result.stderr}`);
      fs.writeFileSync(marker, token);
      return;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  env: Record<string, string>;
  output(): string;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

export const TEST_SECRET = 'test-credits-secret-'.padEnd(48, 'x');

export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  await ensureBuilt();
  const port = await freePort();
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pac-e2e-'));
  const fullEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    NEXT_DIST_DIR: TEST_DIST_DIR,
    NEXT_TELEMETRY_DISABLED: '1',
    DATA_DIR: dataDir,
    CREDITS_KEY_SECRET: TEST_SECRET,
    APP_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'info',
    ...env,
  };
  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    child = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: ROOT, env: fullEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`server did not start:\n${output}`);
  };
  const stop = async () => {
    // A child killed by a signal has a null exitCode but a signalCode, and its exit event has already fired.
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  await launch();
  return { url: `http://127.0.0.1:${port}`, port, dataDir, env: fullEnv, output: () => output, stop, restart: async () => { await stop(); await launch(); } };
}

export function nextAvailable(): boolean {
  return spawnSync(process.execPath, [NEXT_BIN, '--version'], { stdio: 'ignore' }).status === 0;
}
