// Starts a local anvil node (loopback only) and resolves once it answers JSON-RPC.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface AnvilOptions {
  chainId: number;
  /** 0 (default) lets anvil pick a free port. */
  port?: number;
  root?: string;
  mnemonic?: string;
}

export interface AnvilHandle {
  rpcUrl: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The platform binary from @foundry-rs/anvil's optional package; the package's node wrapper otherwise. */
function anvilBinary(root = process.cwd()): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const require = createRequire(path.join(root, 'package.json'));
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  try {
    const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const bin = path.join(path.dirname(pkg), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
    if (existsSync(bin)) return bin;
  } catch {
    // fall through to the wrapper
  }
  return path.join(root, 'node_modules', '.bin', 'anvil');
}

export async function startAnvil(options: AnvilOptions): Promise<AnvilHandle> {
  const args = ['--host', '127.0.0.1', '--port', String(options.port ?? 0), '--chain-id', String(options.chainId)];
  if (options.mnemonic) args.push('--mnemonic', options.mnemonic);
  const child = spawn(anvilBinary(options.root), args, { stdio: ['ignore', 'pipe', 'pipe'] });

  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on [\d.]+:(\d+)/.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume(); // keep draining so anvil never blocks on a full pipe
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`anvil exited (${code}) before listening:\n${out.slice(-2000)}`)));
  });
  child.removeAllListeners('exit');
  child.stderr?.resume();
  // Never leave an orphaned node behind when the owning process exits without calling stop().
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));

  const rpcUrl = `http://127.0.0.1:${port}`;
  return {
    rpcUrl,
    port,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
