// The renderer's settings, read from the environment by the service and by `npm run check` alike, so both
// render (or not) the same way. Their fields are lib/config.ts's RENDER_ENV, which validates them at startup.

import fs from 'node:fs';
import { z } from 'zod';
import { RENDER_ENV } from '@/lib/config';

/** Debian's package first; the others are where other distributions and Google's packages put it. */
const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];


const RenderEnvSchema = z.object(RENDER_ENV);

/** Renderer servers to render through (RENDERER_URL, RENDERER_TOKEN): remote.ts. */
export interface RemoteRenderers {
  urls: string[];
  token: string;
}

export interface RendererSettings {
  /**
   * On with this process's Chromium, on through renderer servers, or 'off' with the reason when rendering cannot
   * or must not run.
   */
  mode: { on: true; executablePath: string } | { on: true; remote: RemoteRenderers } | { on: false; reason: string };
  concurrency: number;
  queue: number;
  /** The memory budget of one page's renderer process, in MB (RENDER_MEMORY_MB). */
  memoryMb: number;
}

/**
 * What RENDERER, RENDERER_URL and CHROMIUM_PATH come to: on through renderer servers, on with an executable, or
 * off and why. RENDERER=chromium with no
 * executable is off too (the check then reports `unavailable` with that reason), not a failed check.
 * @example resolveRendererSettings({ RENDERER: 'off' }).mode // { on: false, reason: 'Rendering is turned off (RENDERER=off).' }
 */
export function resolveRendererSettings(
  env: Readonly<Record<string, string | undefined>> = process.env,
  exists: (file: string) => boolean = isExecutable,
): RendererSettings {
  const parsed = RenderEnvSchema.safeParse(env);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))].join(', ');
    return { mode: { on: false, reason: `Rendering is off: invalid setting (${names}).` }, concurrency: 1, queue: 0, memoryMb: 512 };
  }
  const { RENDERER, CHROMIUM_PATH, RENDER_CONCURRENCY, RENDER_QUEUE, RENDER_MEMORY_MB, RENDERER_URL, RENDERER_TOKEN } = parsed.data;
  const limits = { concurrency: RENDER_CONCURRENCY, queue: RENDER_QUEUE, memoryMb: RENDER_MEMORY_MB };
  if (RENDERER === 'off') return { mode: { on: false, reason: 'Rendering is turned off (RENDERER=off).' }, ...limits };
  if (RENDERER_URL) {
    if (!RENDERER_TOKEN) return { mode: { on: false, reason: 'Rendering is unavailable: RENDERER_URL is set without RENDERER_TOKEN.' }, ...limits };
    return { mode: { on: true, remote: { urls: RENDERER_URL.split(',').map(withoutTrailingSlashes), token: RENDERER_TOKEN } }, ...limits };
  }
  const candidates = CHROMIUM_PATH ? [CHROMIUM_PATH] : CHROMIUM_CANDIDATES;
  const found = candidates.find((file) => exists(file));
  if (!found) {
    const where = CHROMIUM_PATH ? `CHROMIUM_PATH (${CHROMIUM_PATH}) is not an executable file` : 'no Chromium executable was found';
    return { mode: { on: false, reason: `Rendering is unavailable: ${where}.` }, ...limits };
  }
  return { mode: { on: true, executablePath: found }, ...limits };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A renderer address as the client appends its path to it. Trimmed by hand: the regexp form backtracks. */
function withoutTrailingSlashes(url: string): string {
  let out = url.trim();
  while (out.endsWith('/')) out = out.slice(0, -1);
  return out;
}
