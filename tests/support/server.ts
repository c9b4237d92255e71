import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onFreePort, PORT_TAKEN, untilListening } from './ports';

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

/**
 * Spawns `next start` on `port` and resolves once that process reports it listens there, or PORT_TAKEN if
 * another process holds the port. The caller polls readiness of the app itself (e.g. /api/health).
 * @example const started = await spawnNextStart(port, { ...process.env, NEXT_DIST_DIR: '.next-test' });
 */
export async function spawnNextStart(port: number, env: NodeJS.ProcessEnv, root = ROOT): Promise<{ child: ChildProcess; output(): string } | typeof PORT_TAKEN> {
  const bin = root === ROOT ? NEXT_BIN : path.join(root, 'node_modules/next/dist/bin/next');
  const child = spawn(process.execPath, [bin, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  // Next prints its Local address from the server's 'listening' event, so this line is proof of the bind.
  const listening = new RegExp(`Local:\\s+http://127\\.0\\.0\\.1:${port}\\b`);
  const started = await untilListening(child, () => output, listening, /EADDRINUSE/, 60_000);
  return started === PORT_TAKEN ? PORT_TAKEN : { child, output: () => output };
}

/**
 * Polls `url`/api/health until it answers 2xx, failing early if `child` exits.
 * @example await untilHealthy(child, url, () => output);
 */
export async function untilHealthy(child: ChildProcess, url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited with ${child.exitCode ?? child.signalCode}:\n${output()}`);
    const ok = await fetch(`${url}/api/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not become healthy:\n${output()}`);
}

/**
 * `pickPort` replaces the free-port lookup (tests that stage a port collision); `root` serves another copy of the
 * service, already built into its own TEST_DIST_DIR (the bench's other git revision), instead of this one.
 */
export async function startServer(env: Record<string, string> = {}, options: { pickPort?: () => Promise<number>; root?: string } = {}): Promise<RunningServer> {
  if (!options.root) await ensureBuilt();
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pac-e2e-'));
  const envFor = (port: number): Record<string, string> => ({
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    NEXT_DIST_DIR: TEST_DIST_DIR,
    NEXT_TELEMETRY_DISABLED: '1',
    DATA_DIR: dataDir,
    CREDITS_KEY_SECRET: TEST_SECRET,
    APP_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'info',
    // Suites check one fixture host many times a minute; the per-host and per-domain budgets' own tests set their limit.
    CHECKS_PER_SITE_PER_MINUTE: '1000000',
    OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '1000000',
    ...env,
  });
  let child: ChildProcess | undefined;
  let output = () => '';
  let previousOutput = '';
  const launch = async (port: number): Promise<number | typeof PORT_TAKEN> => {
    const started = await spawnNextStart(port, envFor(port) as NodeJS.ProcessEnv, options.root);
    if (started === PORT_TAKEN) return PORT_TAKEN;
    child = started.child;
    const before = previousOutput;
    output = () => before + started.output();
    await untilHealthy(started.child, `http://127.0.0.1:${port}`, output);
    return port;
  };
  const port = await onFreePort(launch, options);
  const stop = async () => {
    // A child killed by a signal has a null exitCode but a signalCode, and its exit event has already fired.
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  };
  const restart = async () => {
    await stop();
    previousOutput = output();
    // Keys, clients and APP_URL name this port, so a restart cannot move.
    if ((await launch(port)) === PORT_TAKEN) throw new Error(`port ${port} was taken by another process while the server was down`);
  };
  return { url: `http://127.0.0.1:${port}`, port, dataDir, env: envFor(port), output: () => output(), stop, restart };
}
