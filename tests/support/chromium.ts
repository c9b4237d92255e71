import { resolveRendererSettings, type RendererSettings } from '@/lib/checks/visibility/render/settings';

// The rendering suites need a Chromium executable (Debian's `chromium`; CHROMIUM_PATH overrides). On a laptop
// without one they are skipped; under CI=true a missing Chromium is an error, never a silent skip.
// No vitest import here: the bench (tests/bench/render.ts) reads these settings outside any test runner;
// the suite hooks are in chromium-suite.ts.

/** Rendering settings with this process's own Chromium (never a renderer server: RENDERER_URL is not read). */
export type LocalChromium = RendererSettings & { mode: { on: true; executablePath: string } };

/**
 * The settings a rendering test runs with: on, with the executable found, whatever RENDERER says.
 * @example const settings = chromiumSettings(); describe.skipIf(!settings)(…)
 */
export function chromiumSettings(): LocalChromium | null {
  const settings = resolveRendererSettings({ CHROMIUM_PATH: process.env.CHROMIUM_PATH, RENDERER: 'chromium' });
  if (!settings.mode.on && process.env.CI === 'true') {
    throw new Error(`Chromium is required when CI=true (apt-get install chromium, or set CHROMIUM_PATH): ${settings.mode.reason}`);
  }
  return settings.mode.on && 'executablePath' in settings.mode ? { ...settings, mode: settings.mode } : null;
}
