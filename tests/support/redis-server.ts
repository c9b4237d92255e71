import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Starts a real redis-server on a free loopback port. On a laptop without Redis the suites that
// need it are skipped; under CI=true a missing redis-server is an error, never a silent skip.

export function redisServerAvailable(): boolean {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!found && process.env.CI === 'true') throw new Error('redis-server is required when CI=true (apt-get install redis-server)');
  return found;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (fault tests). */
  restart(): Promise<void>;
}

/** `persist`: every write reaches the append-only file before it is acknowledged, so data outlives a SIGKILL and restart. */
export async function startRedisServer(options: { persist?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-redis-'));
  let child: ChildProcess | null = null;
  const launch = async () => {
    const durability = options.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...durability, '--dir', dir], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const up = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
        s.on('error', () => resolve(false));
      });
      if (up) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('redis-server did not start');
  };
  const stop = async () => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => { c.once('exit', () => resolve()); c.kill('SIGKILL'); });
  };
  await launch();
  return { url: `redis://127.0.0.1:${port}`, port, stop, restart: launch };
}
