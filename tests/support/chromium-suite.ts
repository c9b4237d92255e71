import { afterAll, beforeAll } from 'vitest';
import { closeRenderer } from '@/lib/checks/visibility/render';
import type { RendererSettings } from '@/lib/checks/visibility/render/settings';

/**
 * Runs the enclosing suite with the check's renderer on (it reads RENDERER and CHROMIUM_PATH from the
 * environment, as the service and the CLI do): set before the suite, put back and the browser closed after.
 * Registers its own beforeAll/afterAll hooks, so it is called at the top of a file or inside a describe.
 * @example const settings = chromiumSettings(); renderWithChromium(settings);
 */
export function renderWithChromium(settings: RendererSettings | null): void {
  const saved = { RENDERER: process.env.RENDERER, CHROMIUM_PATH: process.env.CHROMIUM_PATH };
  beforeAll(() => {
    process.env.RENDERER = 'chromium';
    if (settings?.mode.on) process.env.CHROMIUM_PATH = settings.mode.executablePath;
  });
  afterAll(async () => {
    await closeRenderer();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}
