// The renderer server (`npm run renderer`): a Chromium that services render through (remote.ts) instead of
// launching their own. It is the in-process browser moved behind a socket: the same launch options and profile
// (browser.ts, one source of truth for the hardening), the same memory watchdog (memory-watch.ts) over its own
// renderer processes, and the same recycling once the browser grows. Interception stays with the service:
// every request a page makes is answered by the service's routes through its own SSRF guard.
//
// Playwright's browser server has no authentication: anyone who knows its WebSocket path drives the browser. So
// it listens on loopback only, on a random path, and a small gate in front is what the network sees. The gate
// accepts the path derived from RENDERER_TOKEN (rendererPath) and nothing else (401), at most `concurrency`
// connections at once (503; each service rendering is one connection), and pipes the accepted upgrade to the
// browser server byte for byte. A plain GET on the secret path answers how busy the server is (readiness).

import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { chromium, type BrowserServer, type LaunchOptions } from 'playwright-core';
import { z } from 'zod';
import { RENDER_ENV } from '@/lib/config';
import { createProfile, LAUNCH, launchOptions, RECYCLE } from './browser';
import { watchRendererMemory, type MemoryWatch } from './memory-watch';
import { descendantsMemory } from './proc-rss';
import { rendererPath } from './remote';
import { resolveRendererSettings } from './settings';

interface RendererServerOptions {
  executablePath: string;
  token: string;
  host: string;
  /** 0 for any free port. */
  port: number;
  /** Pages (connections) at once. */
  concurrency: number;
  /** The memory budget of one page's renderer process, in MB (RENDER_MEMORY_MB). */
  memoryMb: number;
}

export interface RunningRendererServer {
  /** ws://host:port, without the secret path: what RENDERER_URL names. */
  url: string;
  close(): Promise<void>;
}

interface Backend {
  server: BrowserServer;
  port: number;
  path: string;
}

const ServerEnvSchema = z.object(RENDER_ENV);

/**
 * The server's options from the environment (RENDERER_TOKEN, RENDERER_SERVER_HOST/PORT/CONCURRENCY,
 * RENDER_MEMORY_MB, CHROMIUM_PATH), or what is wrong with them, in words naming the variable, never its value.
 * @example const options = rendererServerOptions(process.env); if (typeof options === 'string') fail(options);
 */
export function rendererServerOptions(env: Readonly<Record<string, string | undefined>>): RendererServerOptions | string {
  const parsed = ServerEnvSchema.safeParse(env);
  if (!parsed.success) return `Invalid setting: ${[...new Set(parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`))].join('; ')}.`;
  const { RENDERER_TOKEN, RENDERER_SERVER_HOST, RENDERER_SERVER_PORT, RENDERER_SERVER_CONCURRENCY, RENDER_MEMORY_MB } = parsed.data;
  if (!RENDERER_TOKEN) return 'RENDERER_TOKEN is required: the secret the services render with (at least 32 characters).';
  // This process renders itself, whatever RENDERER_URL the shared environment names for the services.
  const { mode } = resolveRendererSettings({ ...env, RENDERER: 'chromium', RENDERER_URL: undefined });
  if (!mode.on || !('executablePath' in mode)) return mode.on ? 'No Chromium executable.' : mode.reason;
  return { executablePath: mode.executablePath, token: RENDERER_TOKEN, host: RENDERER_SERVER_HOST, port: RENDERER_SERVER_PORT, concurrency: RENDERER_SERVER_CONCURRENCY, memoryMb: RENDER_MEMORY_MB };
}

/**
 * Launches the browser and opens the gate in front of it.
 * @example const server = await startRendererServer({ executablePath: '/usr/bin/chromium', token, host: '0.0.0.0', port: 3100, concurrency: 4, memoryMb: 512 });
 */
export async function startRendererServer(options: RendererServerOptions): Promise<RunningRendererServer> {
  const expected = crypto.createHash('sha256').update(rendererPath(options.token)).digest();
  const authorised = (url: string | undefined) =>
    crypto.timingSafeEqual(crypto.createHash('sha256').update((url ?? '').split('?')[0]!).digest(), expected);

  let backend: Promise<Backend> | null = null;
  let pages = 0;
  let served = 0;
  /** Renderings accepted since the server started (never reset), for the operator and the multi-instance trial. */
  let accepted = 0;
  let memory: MemoryWatch | null = null;
  let closing = false;
  const sockets = new Set<Duplex>();

  const launch = (): Promise<Backend> => {
    const started = (async () => {
      const profile = await createProfile();
      try {
        // `_userDataDir` is launchServer's way to start on a profile we wrote (PROFILE_PREFERENCES: preloading
        // off), as launchPersistentContext does in-process; its public options have no profile directory.
        const server = await chromium.launchServer({ ...LAUNCH.adjust(launchOptions(options.executablePath, options.memoryMb)), host: '127.0.0.1', port: 0, _userDataDir: profile.dir } as LaunchOptions);
        server.on('close', () => {
          profile.remove();
          if (backend === started) backend = null;
        });
        const endpoint = new URL(server.wsEndpoint());
        return { server, port: Number(endpoint.port), path: endpoint.pathname };
      } catch (error) {
        profile.remove();
        throw error;
      }
    })();
    started.catch(() => {
      if (backend === started) backend = null;
    });
    return started;
  };

  // A long-lived browser grows: once no page is open and it has served its bound or holds too much, it is
  // replaced (the next connection launches a fresh one).
  const recycleIfDue = () => {
    if (pages > 0 || !backend) return;
    const memory = descendantsMemory()?.pss ?? 0;
    if (served < RECYCLE.afterContexts && memory <= RECYCLE.pssBytes) return;
    const old = backend;
    backend = null;
    served = 0;
    void old.then((b) => b.server.close()).catch(() => {});
  };

  const refuse = (socket: Duplex, status: number, text: string) => {
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };

  const gate = http.createServer((req, res) => {
    if (!authorised(req.url)) return void res.writeHead(401, { 'content-length': '0' }).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ ok: true, pages, limit: options.concurrency, accepted }));
  });

  gate.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (closing || !authorised(req.url)) return refuse(socket, 401, 'Unauthorized');
    if (pages >= options.concurrency) return refuse(socket, 503, 'Service Unavailable');
    pages++;
    served++;
    accepted++;
    const budget = options.memoryMb * 1024 * 1024;
    memory ??= watchRendererMemory(budget, budget * options.concurrency);
    sockets.add(socket);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      sockets.delete(socket);
      pages--;
      if (pages === 0) {
        memory?.stop();
        memory = null;
      }
      recycleIfDue();
    };
    socket.once('close', end);
    void (backend ??= launch()).then(
      (b) => {
        if (socket.destroyed) return;
        const upstream = net.connect(b.port, '127.0.0.1');
        upstream.on('error', () => socket.destroy());
        upstream.once('close', () => socket.destroy());
        socket.once('close', () => upstream.destroy());
        const lines = [`${req.method} ${b.path} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        socket.pipe(upstream).pipe(socket);
      },
      () => refuse(socket, 503, 'Service Unavailable'),
    );
  });

  await new Promise<void>((resolve, reject) => {
    gate.once('error', reject);
    gate.listen(options.port, options.host, () => resolve());
  });
  // Launched now, so the first rendering does not wait for it and a Chromium that cannot start stops the server.
  const first = launch();
  backend = first;
  try {
    await first;
  } catch (error) {
    await new Promise((resolve) => gate.close(resolve));
    throw error;
  }
  const address = gate.address() as net.AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `ws://${host}:${address.port}`,
    async close() {
      closing = true;
      for (const socket of sockets) socket.destroy();
      memory?.stop();
      await new Promise((resolve) => gate.close(resolve));
      const last = backend;
      backend = null;
      if (last) await last.then((b) => b.server.close()).catch(() => {});
    },
  };
}
