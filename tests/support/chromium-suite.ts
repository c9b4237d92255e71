import { afterAll, beforeAll } from 'vitest';
import { closeRenderer } from '@/lib/checks/visibility/render';
import type { LocalChromium } from './chromium';
import { startRendererServer, type RendererServerProcess } from './renderer-server';
import { saveEnv } from './saved-env';

/**
 * Where the rendering suites render: `in-process` (this process's Chromium, the default) or `remote` (a renderer
 * server in a process of its own, RENDERER_URL). `TEST_RENDERER=remote npx vitest run <suite>` runs a suite
 * over the connection; the suites that prove a guard holds run both ways.
 */
export const TEST_RENDERER: 'in-process' | 'remote' = process.env.TEST_RENDERER === 'remote' ? 'remote' : 'in-process';

/**
 * Runs the enclosing suite with the check's renderer on (it reads RENDERER, CHROMIUM_PATH and RENDERER_URL from
 * the environment, as the service and the CLI do): set before the suite, put back and the browser closed after.
 * With TEST_RENDERER=remote a renderer server is started first and the suite renders through it.
 * Registers its own beforeAll/afterAll hooks, so it is called at the top of a file or inside a describe.
 * @example const settings = chromiumSettings(); renderWithChromium(settings);
 */
export function renderWithChromium(settings: LocalChromium | null, where: 'in-process' | 'remote' = TEST_RENDERER): void {
  const saved = saveEnv(['RENDERER', 'CHROMIUM_PATH', 'RENDERER_URL', 'RENDERER_TOKEN']);
  let server: RendererServerProcess | null = null;
  beforeAll(async () => {
    process.env.RENDERER = 'chromium';
    if (settings) process.env.CHROMIUM_PATH = settings.mode.executablePath;
    delete process.env.RENDERER_URL;
    if (where === 'remote' && settings) {
      server = await startRendererServer({ CHROMIUM_PATH: settings.mode.executablePath });
      process.env.RENDERER_URL = server.url;
      process.env.RENDERER_TOKEN = server.token;
    }
  });
  afterAll(async () => {
    await closeRenderer();
    // A suite meant to render remotely that never reached the server proved nothing about the connection.
    const accepted = server ? await server.accepted() : null;
    await server?.stop();
    saved.restore();
    if (accepted === 0) throw new Error('TEST_RENDERER=remote, yet the renderer server accepted no rendering: the suite rendered in-process');
  });
}
