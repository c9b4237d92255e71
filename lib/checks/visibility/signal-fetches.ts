// The extra requests behind the site signals (visibility check v2): the page and `/` asked for as Markdown, the
// links of /llms.txt, /.well-known/tdmrep.json and the first child of a sitemap index. Each goes through
// safeFetch (SSRF guard, size and time caps) on the check's shared signal, and none ever throws: what a
// site file answered, or that it did not, is a fact for the report.

import type { FetchedFile, MarkdownAnswer } from './analysis';
import { FetchRefusedError, OutboundRefusedError, safeFetch, type FetchResult, type SafeFetchOptions } from '@/lib/outbound/safe-fetch';
import { LLMS_LINKS_MAX, type LlmsLinkFetch } from './site-signals';
import { SURFACE_ACCEPT, SURFACE_KINDS, SURFACE_PATHS, type SurfaceFile, type SurfaceKind } from './agent-surfaces';
import type { RslFile } from './rsl';
import { AI_CATALOG_ACCEPT, AI_CATALOG_FOLLOW_MAX, type AiCatalogLocation } from './ai-catalog';

/** Enough of a Markdown answer to tell whether it is the page (its title or most of its words). */
const MARKDOWN_MAX_BYTES = 64 * 1024;
/** Enough of a linked file to tell an HTML page from Markdown (isHtml reads the first 1 KiB). */
const LLMS_LINK_MAX_BYTES = 2048;
/** A TDMRep file is a short JSON list of path rules. */
const TDMREP_MAX_BYTES = 16 * 1024;
/** Requests the site signals add to one check, whatever the site: the Markdown requests of the page and of `/`. */
export const SIGNAL_REQUESTS_PER_CHECK = 2;
/** Requests the site signals add per origin probed, at most: tdmrep.json, a sitemap index's first child, the llms.txt links. */
export const SIGNAL_REQUESTS_PER_ORIGIN = 2 + LLMS_LINKS_MAX;

/** The agent surfaces and the RSL licence are small documents: read this much of each. */
const SURFACE_MAX_BYTES = 64 * 1024;
/** A well-known document is followed this far when it moves. */
export const SURFACE_MAX_REDIRECTS = 2;
/**
 * Requests the agent surfaces and the licences add per origin probed, redirects not counted: the seven well-known
 * documents, the RSL licence, the TDMRep policy, the AI Catalog and the cards followed from it.
 */
export const SURFACE_REQUESTS_PER_ORIGIN = SURFACE_KINDS.length + 2 + 1 + AI_CATALOG_FOLLOW_MAX;
/** Only whether the TDMRep policy answers matters: a few bytes are read. */
const TDM_POLICY_MAX_BYTES = 1024;

type Options = Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap' | 'outbound'> & { timeoutMs: number };

/**
 * The page URL asked for with `Accept: text/markdown` (Markdown for Agents negotiation): status and
 * content type, or nulls when it got no answer.
 * @example await fetchMarkdownAnswer(new URL('https://site.test/'), { signal, timeoutMs: 10_000 }) // { status: 200, contentType: 'text/markdown; charset=utf-8' }
 */
export async function fetchMarkdownAnswer(url: URL, options: Options): Promise<MarkdownAnswer> {
  try {
    const res = await safeFetch(url, { ...options, maxBytes: MARKDOWN_MAX_BYTES, accept: 'text/markdown', purpose: 'the page as Markdown' });
    const contentType = res.header('content-type');
    // Only a Markdown body is compared with the page; any other answer is the page itself or an error.
    const markdown = (contentType ?? '').split(';')[0].trim().toLowerCase() === 'text/markdown';
    return { status: res.status, contentType, body: markdown ? res.body : null };
  } catch {
    return { status: null, contentType: null, body: null };
  }
}

/**
 * Follows llms.txt links at once (they share the check's signal and each its own timeout). An address the
 * SSRF guard refuses is never requested and comes back `refused`.
 * @example await fetchLlmsLinks(['https://site.test/a.md'], options) // [{ url, status: 200, contentType, body, refused: false }]
 */
export function fetchLlmsLinks(urls: readonly string[], options: Options): Promise<LlmsLinkFetch[]> {
  return Promise.all(
    urls.slice(0, LLMS_LINKS_MAX).map(async (url): Promise<LlmsLinkFetch> => {
      try {
        const res = await safeFetch(new URL(url), {
          ...options,
          maxBytes: LLMS_LINK_MAX_BYTES,
          purpose: 'llms.txt link',
          accept: 'text/markdown,text/plain;q=0.9,text/html;q=0.8,*/*;q=0.5',
        });
        return { url, status: res.status, contentType: res.header('content-type'), body: res.body, refused: false, notSent: false };
      } catch (err) {
        const notSent = err instanceof OutboundRefusedError;
        return { url, status: null, contentType: null, body: null, refused: !notSent && err instanceof FetchRefusedError, notSent };
      }
    }),
  );
}

function file(res: FetchResult | null): FetchedFile {
  return { status: res?.status ?? null, contentType: res?.header('content-type') ?? null, body: res?.body ?? null, bytesRead: res?.bytesRead ?? 0, truncated: res?.truncated ?? false };
}

/**
 * `/.well-known/tdmrep.json` of an origin.
 * @example (await fetchTdmrep(new URL('https://site.test/'), options)).status // 404 when the site has none
 */
export async function fetchTdmrep(origin: URL, options: Options): Promise<FetchedFile> {
  try {
    return file(await safeFetch(new URL('/.well-known/tdmrep.json', origin), { ...options, maxBytes: TDMREP_MAX_BYTES, accept: 'application/json,*/*;q=0.5', purpose: 'tdmrep.json' }));
  } catch {
    return file(null);
  }
}

async function surfaceFile(url: URL, accept: string, purpose: string, options: Options): Promise<SurfaceFile> {
  try {
    const res = await safeFetch(url, { ...options, maxBytes: SURFACE_MAX_BYTES, maxRedirects: SURFACE_MAX_REDIRECTS, accept, purpose });
    return { url: url.href, status: res.status, contentType: res.header('content-type'), body: res.body, truncated: res.truncated };
  } catch {
    return { url: url.href, status: null, contentType: null, body: null, truncated: false };
  }
}

/**
 * The well-known agent surfaces of an origin (agent-surfaces.ts SURFACE_PATHS), all requested at once.
 * @example (await fetchAgentSurfaces(new URL('https://site.test/'), options)).mcpServerCard.status // 404 when the site has none
 */
export async function fetchAgentSurfaces(origin: URL, options: Options): Promise<Record<SurfaceKind, SurfaceFile>> {
  const files = await Promise.all(SURFACE_KINDS.map((kind) => surfaceFile(new URL(SURFACE_PATHS[kind], origin), SURFACE_ACCEPT[kind], SURFACE_PATHS[kind], options)));
  return Object.fromEntries(SURFACE_KINDS.map((kind, i) => [kind, files[i]])) as Record<SurfaceKind, SurfaceFile>;
}

/**
 * The AI Catalog where aiCatalogLocation found it (at most SURFACE_MAX_BYTES, SURFACE_MAX_REDIRECTS redirects).
 * @example (await fetchAiCatalog({ url: 'https://site.test/.well-known/ai-catalog.json', via: 'well-known' }, options)).status // 404 when the site has none
 */
export function fetchAiCatalog(location: AiCatalogLocation, options: Options): Promise<SurfaceFile> {
  return surfaceFile(new URL(location.url), AI_CATALOG_ACCEPT, 'AI Catalog', options);
}

/**
 * The MCP server cards and A2A agent cards an AI Catalog lists by address (aiCatalogFollowUrls), all at once.
 * @example (await fetchAiCatalogCards(['https://site.test/mcp/card.json'], options))[0].status // 200
 */
export function fetchAiCatalogCards(urls: readonly string[], options: Options): Promise<SurfaceFile[]> {
  return Promise.all(urls.slice(0, AI_CATALOG_FOLLOW_MAX).map((url) => surfaceFile(new URL(url), 'application/json,*/*;q=0.5', 'card the AI Catalog lists', options)));
}

/**
 * The TDMRep policy (`tdm-policy`) a site names: whether it answers, not what it says.
 * @example (await fetchTdmPolicy(new URL('https://site.test/policy.json'), options)).status // 200
 */
export async function fetchTdmPolicy(url: URL, options: Options): Promise<{ url: string; status: number | null }> {
  try {
    const res = await safeFetch(url, { ...options, maxBytes: TDM_POLICY_MAX_BYTES, maxRedirects: SURFACE_MAX_REDIRECTS, accept: 'application/ld+json,application/json;q=0.9,*/*;q=0.5', purpose: 'TDMRep policy' });
    return { url: url.href, status: res.status };
  } catch {
    return { url: url.href, status: null };
  }
}

/**
 * The RSL licence a site names, at most SURFACE_MAX_BYTES; all null when it got no answer.
 * @example (await fetchRslLicence(new URL('https://site.test/license.xml'), options)).status // 200
 */
export async function fetchRslLicence(url: URL, options: Options): Promise<RslFile> {
  const { status, contentType, body } = await surfaceFile(url, 'application/rsl+xml,application/xml;q=0.9,text/xml;q=0.9,*/*;q=0.5', 'RSL licence', options);
  return { url: url.href, status, contentType, body };
}
