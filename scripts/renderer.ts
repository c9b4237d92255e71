// The renderer server: a hardened Chromium that services render through (RENDERER_URL, RENDERER_TOKEN).
//   RENDERER_TOKEN=… npm run renderer     listens on RENDERER_SERVER_HOST:RENDERER_SERVER_PORT (127.0.0.1:3100)
// See docs/DEPLOY.md, "A renderer pool". Ends cleanly on SIGTERM and SIGINT, its browser with it.
import { rendererServerOptions, startRendererServer } from '@/lib/checks/visibility/render/server';
import { logEvent, registerLogSecrets } from '@/lib/log';
import { runCli } from './cli';

async function main(): Promise<number> {
  const options = rendererServerOptions(process.env);
  if (typeof options === 'string') {
    console.error(options);
    return 2;
  }
  registerLogSecrets([options.token]);
  const server = await startRendererServer(options);
  // The URL without its secret path: the token, and the path derived from it, are never written anywhere.
  logEvent({ event: 'renderer.listening', url: server.url, concurrency: options.concurrency, memoryMb: options.memoryMb });
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve());
  });
  await server.close();
  return 0;
}

runCli(main);
