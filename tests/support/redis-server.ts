import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onFreePort, PORT_TAKEN, untilListening } from './ports';

// Starts a real redis-server on a free loopback port (ports.ts says how it is chosen). On a laptop without
// Redis the suites that need it are skipped; under CI=true a missing redis-server is an error, never a silent skip.

export function redisServerAvailable(): boolean {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!found && process.env.CI === 'true') throw new Error('redis-server is required when CI=true (apt-get install redis-server)');
  return found;
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (fault tests). */
  restart(): Promise<void>;
}

/**
 * `persist`: every write reaches the append-only file before it is acknowledged, so data outlives a SIGKILL and restart.
 * `pickPort` replaces the free-port lookup (tests that stage a port collision).
 */
export async function startRedisServer(options: { persist?: boolean; pickPort?: () => Promise<number> } = {}): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-redis-'));
  const durability = options.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  let child: ChildProcess | null = null;
  const launch = async (port: number) => {
    // Logs go to stdout (no --logfile): its "Ready to accept connections" line is how we know this
    // redis-server, and not whatever else holds the port, is the one listening.
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...durability, '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    started.stdout!.on('data', (d) => (output += d));
    started.stderr!.on('data', (d) => (output += d));
    return untilListening(started, () => output, /Ready to accept connections/, /Address already in use/, 10_000);
  };
  const port = await onFreePort(async (candidate) => ((await launch(candidate)) === PORT_TAKEN ? PORT_TAKEN : candidate), options);
  const stop = async () => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => { c.once('exit', () => resolve()); c.kill('SIGKILL'); });
  };
  const restart = async () => {
    // Clients hold this URL, so a restart cannot move; a port taken meanwhile fails the test that restarts.
    if ((await launch(port)) === PORT_TAKEN) throw new Error(`port ${port} was taken by another process while redis-server was down`);
  };
  return { url: `redis://127.0.0.1:${port}`, port, stop, restart };
}
