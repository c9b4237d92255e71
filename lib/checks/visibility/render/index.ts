// The rendered view as the visibility check uses it: one call started once the page is fetched, running
// beside the site files, whose answer never fails the check. Shutdown closes the shared browser.

import type { HostMap } from '@/lib/outbound/host-map';
import type { OutboundGate } from '@/lib/outbound/outbound';
import { compareFindings, VISIBILITY_LIMITS, type Finding } from '../rubric';
import type { LookupFn } from '@/lib/outbound/safe-fetch';
import { analyse } from '../analysis-pool';
import { closeBrowsers } from './browser';
import type { PageRendering, RenderCapture } from './compare';
import { capturePage, RENDER_LIMITS, RENDER_MAX_BYTES, RENDER_MAX_REQUESTS, type ServedDocument } from './render';
import type { RendererSettings } from './settings';
import type { WebMcp } from '../webmcp';

export type { PageRendering } from './compare';

/** What the rendering adds to a report. */
export interface RenderedView {
  rendering: PageRendering;
  /** `site.agentSurfaces.webMcp`: null when the page was not rendered. */
  webMcp: WebMcp | null;
  findings: Finding[];
  limits: string[];
}

export interface RenderedViewOptions {
  signal: AbortSignal;
  hostMap: HostMap;
  lookup?: LookupFn;
  /** The check's outbound gate (outbound.ts), asked before each subrequest hop. */
  outbound?: OutboundGate;
  /** How the comparison runs on the analysis pool (the check's own settings). */
  analysis?: { signal?: AbortSignal; cpuBudgetMs?: number };
  /** Replaces the settings read from the environment (tests). */
  settings?: RendererSettings;
  /** Who pays for the check: each owner renders one page at a time, owners in turn (render.ts). */
  owner?: string;
}

/** Replaces the first limit (served HTML only) when the page was rendered. */
export const RENDERED_LIMIT =
  `The page was also rendered once in headless Chromium with JavaScript on, and compared with the HTML as served. Content that appears only after interaction (clicks, scrolling, consent banners), in logged-in states, or after the page's scripts have used ${RENDER_LIMITS.cpuMs / 1000} s of processor time, ${RENDER_LIMITS.loadMs / 1000} s have passed, ${RENDER_MAX_REQUESTS} requests or ${RENDER_MAX_BYTES / 1024 / 1024} MB is not seen; images, media and fonts are not loaded. Google renders pages, most AI fetchers do not.`;

/**
 * The limits of a report: today's list, with its first sentence replaced when the page was rendered.
 * @example renderedLimits('rendered')[0] === RENDERED_LIMIT
 */
function renderedLimits(state: PageRendering['state']): string[] {
  const limits = [...VISIBILITY_LIMITS];
  if (state === 'rendered') limits[0] = RENDERED_LIMIT;
  return limits;
}

/**
 * Renders the fetched page and compares it with the HTML as served. Never rejects: a rendering that cannot
 * run, or whose comparison fails on the analysis pool, is reported in `rendering.state` and `reason`.
 * @example const view = renderedView(page, { signal, hostMap }); … const { rendering, findings, limits } = await view;
 */
export async function renderedView(page: ServedDocument & { truncated: boolean }, options: RenderedViewOptions): Promise<RenderedView> {
  let capture: RenderCapture;
  try {
    capture = await capturePage(page, options);
  } catch {
    capture = { state: 'failed', reason: 'The browser failed while rendering the page.', html: null, webMcp: null, requests: 0, refused: 0, durationMs: 0 };
  }
  try {
    const { rendering, webMcp, findings } = await analyse(
      { kind: 'rendering', served: { url: page.url, headers: page.headers, body: page.body, truncated: page.truncated }, capture },
      options.analysis ?? {},
    );
    return { rendering, webMcp, findings, limits: renderedLimits(rendering.state) };
  } catch {
    const failed = { ...capture, state: 'failed' as const, reason: 'The rendered page could not be analysed in time.', html: null };
    const { html: _html, webMcp: _webMcp, ...counts } = failed;
    return {
      rendering: { ...counts, title: null, h1Count: null, wordCount: null, textLength: null, jsOnlyShare: null },
      webMcp: null,
      findings: [],
      limits: renderedLimits('failed'),
    };
  }
}

/**
 * The report's findings with the rendering's merged in, in the report's order.
 * @example withRenderedFindings(result.findings, view.findings)
 */
export function withRenderedFindings(findings: readonly Finding[], rendered: readonly Finding[]): Finding[] {
  return [...findings, ...rendered].sort(compareFindings);
}

/**
 * Closes the shared browser (the next rendering launches a new one). Call it on shutdown; the CLI calls it
 * when its check is done so the process can exit.
 * @example await closeRenderer();
 */
export function closeRenderer(): Promise<void> {
  return closeBrowsers();
}

/**
 * Closes the browser on SIGTERM and SIGINT. A process with no other handler for the signal is then ended by
 * it as before (the handler re-raises it); one that has its own (Next's server) exits its own way.
 * @example closeRendererOnSignals(); // once, at startup
 */
export function closeRendererOnSignals(): void {
  const holder = globalThis as unknown as { __pacRendererSignals?: boolean };
  if (holder.__pacRendererSignals) return;
  holder.__pacRendererSignals = true;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void closeRenderer().finally(() => {
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
}
