// The x402 reference: a minimal Next.js app with @x402/next's withX402 on one trivial route (POST /api/paid,
// 1 USD in USDC on Base, eip155:8453), in tests/bench/x402-reference/. It is installed with `npm install
// --legacy-peer-deps` (its optional peer @x402/paywall does not exist) into its own gitignored node_modules,
// never the project's lockfile, and built with `next build`; both only when something changed. The bench
// compares our x402 path with it, and the endpoint check's tests check it as an official seller.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { onFreePort, PORT_TAKEN, untilListening } from './ports';

const REFERENCE = path.join(__dirname, '../bench/x402-reference');
const NEXT_BIN = path.join(REFERENCE, 'node_modules/next/dist/bin/next');

const newest = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
    const p = path.join(dir, e.name);
    return Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }, 0);

/**
 * Installs (when its package.json or lock is newer than its node_modules) and builds (when its sources are newer than the build) the reference app.
 * @example prepareReference(); const reference = await startReference({ X402_FACILITATOR_URL, PAY_TO_ADDRESS });
 */
export function prepareReference(): void {
  const installed = path.join(REFERENCE, 'node_modules/.package-lock.json');
  const manifests = ['package.json', 'package-lock.json'].map((f) => path.join(REFERENCE, f)).filter((f) => fs.existsSync(f));
  if (!fs.existsSync(installed) || manifests.some((f) => fs.statSync(f).mtimeMs > fs.statSync(installed).mtimeMs)) {
    console.log('[x402-reference] npm install --legacy-peer-deps in tests/bench/x402-reference');
    execFileSync('npm', ['install', '--legacy-peer-deps', '--no-audit', '--no-fund'], { cwd: REFERENCE, stdio: 'inherit' });
  }
  const built = path.join(REFERENCE, '.next/BUILD_ID');
  const sources = Math.max(newest(path.join(REFERENCE, 'app')), fs.statSync(path.join(REFERENCE, 'next.config.js')).mtimeMs, fs.statSync(installed).mtimeMs);
  if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < sources) {
    console.log('[x402-reference] next build in tests/bench/x402-reference');
    execFileSync(process.execPath, [NEXT_BIN, 'build'], { cwd: REFERENCE, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' } });
  }
}

/**
 * `next start` of the reference app on a free loopback port, with `env` (X402_FACILITATOR_URL, PAY_TO_ADDRESS).
 * @example const reference = await startReference(env); await fetch(`${reference.url}/api/paid`, { method: 'POST', body: '{}' }); await reference.stop();
 */
export async function startReference(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  let child: ChildProcess | undefined;
  const port = await onFreePort(async (p) => {
    const c = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(p), '-H', '127.0.0.1'], {
      cwd: REFERENCE,
      env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    c.stdout!.on('data', (d) => (output += d));
    c.stderr!.on('data', (d) => (output += d));
    const started = await untilListening(c, () => output, new RegExp(`Local:\\s+http://127\\.0\\.0\\.1:${p}\\b`), /EADDRINUSE/, 60_000);
    if (started === PORT_TAKEN) return PORT_TAKEN;
    child = c;
    return p;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGTERM');
      });
    },
  };
}
