import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { rendererPath } from '@/lib/checks/visibility/render/remote';

// A renderer server (`npm run renderer`, scripts/renderer.ts) in a process of its own, as it runs in a
// deployment: the service under test renders through it over a real WebSocket. It listens on a port the kernel
// picks (RENDERER_SERVER_PORT=0) and says which on its first log line.

const ROOT = path.resolve(__dirname, '../..');

export interface RendererServerProcess {
  /** What RENDERER_URL names. */
  url: string;
  /** What RENDERER_TOKEN holds. */
  token: string;
  /** The server process (its browser is below it). */
  pid: number;
  /** SIGTERM and wait for it to exit. */
  stop(): Promise<void>;
  /** SIGKILL at once: a server that dies mid-rendering. */
  kill(): Promise<void>;
  /** Everything it wrote. */
  output(): string;
  /** How many renderings the server has accepted so far (its own count, read over HTTP). */
  accepted(): Promise<number>;
}

/**
 * Starts `scripts/renderer.ts` with a fresh random token; resolves once it is listening.
 * @example const renderer = await startRendererServer(); process.env.RENDERER_URL = renderer.url; … await renderer.stop();
 */
export async function startRendererServer(env: Record<string, string> = {}): Promise<RendererServerProcess> {
  const token = crypto.randomBytes(32).toString('base64url');
  // Node itself with tsx's loader (not the tsx wrapper, which runs it in a child): the pid is the server's.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/renderer.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', RENDERER_TOKEN: token, RENDERER_SERVER_PORT: '0', RENDERER_SERVER_HOST: '127.0.0.1', RENDERER_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the renderer server did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"renderer.listening"'));
      if (!line) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the renderer server exited before it listened:\n${output}`));
    });
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const accepted = async () => ((await (await fetch(`${url.replace(/^ws/, 'http')}${rendererPath(token)}`)).json()) as { accepted: number }).accepted;
  return { url, token, pid: child.pid!, stop: () => end('SIGTERM'), kill: () => end('SIGKILL'), output: () => output, accepted };
}
