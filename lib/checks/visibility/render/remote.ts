// Rendering through renderer servers (server.ts, `npm run renderer`) instead of a Chromium of this process.
// Each rendering opens its own connection (playwright-core's `chromium.connect`) and closes it when done: the
// server counts connections to bound the pages it renders, a connection that drops costs one rendering only,
// and a server that was down is simply tried again by the next rendering. Everything that guards a page runs
// here, on the client side of the connection: routes, the WebSocket route, init scripts and the CDP session
// that reads the page's processor time are all Playwright protocol calls answered by this process.
// Several servers (RENDERER_URL with commas) are used in turn; one that does not answer hands the rendering to
// the next.

import crypto from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import type { RemoteRenderers } from './settings';

const CONNECT_TIMEOUT_MS = 5_000;
const PROBE_TIMEOUT_MS = 1_500;

/** No renderer server would take the page: `busy` when every one answered it was at its page limit. */
export class RendererUnavailable extends Error {
  constructor(
    message: string,
    readonly busy: boolean,
  ) {
    super(message);
  }
}

/**
 * The secret path a renderer server answers on. Playwright's browser server has no authentication of its own:
 * whoever knows its WebSocket path may drive the browser. The gate in front of it (server.ts) accepts this path
 * only, so the token is the credential; a hash of it travels rather than the token itself, and neither side
 * ever logs either.
 * @example chromium.connect(`ws://renderer:3100${rendererPath(token)}`)
 */
export function rendererPath(token: string): string {
  return `/${crypto.createHash('sha256').update(`paid-agent-checks renderer\0${token}`).digest('hex')}`;
}

let turn = 0;

/** What a failed connection attempt means, in words a report can carry (never the server's address). */
function whyNot(error: unknown): { reason: string; busy: boolean } {
  const text = error instanceof Error ? error.message : String(error);
  if (/\b401\b/.test(text)) return { reason: 'the renderer server refused this service’s token', busy: false };
  if (/\b503\b/.test(text)) return { reason: 'the renderer server is rendering as many pages as it may', busy: true };
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ECONNRESET/.test(text)) return { reason: 'the renderer server could not be reached', busy: false };
  if (/Timeout|timed out/i.test(text)) return { reason: `the renderer server did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`, busy: false };
  return { reason: 'the connection to the renderer server failed', busy: false };
}

/**
 * Connects to the next renderer server in turn, trying the others when it does not take the connection.
 * @throws RendererUnavailable with the reason when none does.
 * @example const browser = await connectRenderer(remote); try { … } finally { await browser.close(); }
 */
export async function connectRenderer(remote: RemoteRenderers): Promise<Browser> {
  const first = turn++ % remote.urls.length;
  const failures: Array<{ reason: string; busy: boolean }> = [];
  for (let i = 0; i < remote.urls.length; i++) {
    const url = remote.urls[(first + i) % remote.urls.length]!;
    try {
      return await chromium.connect(`${url}${rendererPath(remote.token)}`, { timeout: CONNECT_TIMEOUT_MS });
    } catch (error) {
      failures.push(whyNot(error));
    }
  }
  if (failures.every((f) => f.busy)) {
    const all = remote.urls.length === 1 ? 'the renderer server is' : `all ${remote.urls.length} renderer servers are`;
    throw new RendererUnavailable(`Not rendered: ${all} rendering as many pages as they may.`, true);
  }
  const reasons = [...new Set(failures.filter((f) => !f.busy).map((f) => f.reason))].join('; ');
  throw new RendererUnavailable(`Rendering is unavailable: ${reasons}.`, false);
}

/** One renderer server as readiness sees it; the address is left out, readiness answers anyone who asks. */
interface RendererProbe {
  up: boolean;
  /** Pages it renders now and the most it may, when it answered. */
  pages?: number;
  limit?: number;
  reason?: string;
}

/**
 * Asks each renderer server, over plain HTTP on the same secret path, whether it is up and how busy it is.
 * @example await probeRenderers(remote) // [{ up: true, pages: 1, limit: 4 }]
 */
export function probeRenderers(remote: RemoteRenderers, timeoutMs = PROBE_TIMEOUT_MS): Promise<RendererProbe[]> {
  return Promise.all(
    remote.urls.map(async (url): Promise<RendererProbe> => {
      try {
        const res = await fetch(`${url.replace(/^ws/, 'http')}${rendererPath(remote.token)}`, { signal: AbortSignal.timeout(timeoutMs) });
        if (res.status === 401) return { up: false, reason: 'the renderer server refused this service’s token' };
        if (!res.ok) return { up: false, reason: `the renderer server answered ${res.status}` };
        const body = (await res.json()) as { pages?: unknown; limit?: unknown };
        return { up: true, pages: Number(body.pages), limit: Number(body.limit) };
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
        return { up: false, reason: whyNot(cause).reason };
      }
    }),
  );
}
