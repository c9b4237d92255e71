// Whether the site treats a signed agent differently (Web Bot Auth). The page itself was fetched under our own
// user agent, signed when this service has a key (lib/outbound/web-bot-auth.ts); this sends the same address
// once more, under the same user agent but unsigned, so the two answers differ by the signature alone. One
// extra request (and its redirects), sent only when the page was signed and answered 2xx.

import { FetchFailedError, FetchRefusedError, OutboundRefusedError, safeFetch, type SafeFetchOptions } from '@/lib/outbound/safe-fetch';

/** The unsigned repeat reads this much: its status is the answer, the body only needs to start. */
const UNSIGNED_MAX_BYTES = 1024;
const UNSIGNED_TIMEOUT_MS = 10_000;
/** The unsigned repeat follows the final address this far (the page's own redirects were already followed). */
export const SIGNED_AGENT_MAX_REDIRECTS = 2;
/** Requests the comparison can send: the unsigned repeat and its redirects. */
export const SIGNED_AGENT_MAX_REQUESTS = 1 + SIGNED_AGENT_MAX_REDIRECTS;

/** `site.access.signedAgent`. */
export interface SignedAgentAccess {
  /** Whether this check's own requests carried a Web Bot Auth signature. */
  signed: boolean;
  /** The page's final status, fetched signed; null when not signed. */
  signedStatus: number | null;
  /** The same address unsigned; null when not sent or no answer came. */
  unsignedStatus: number | null;
  /** Whether the two statuses differ; null when there is no pair to compare. */
  differs: boolean | null;
  /** What was compared and what it means, in one sentence (the report's `short` cap). */
  words: string;
}

/**
 * `site.access.signedAgent` when nothing is compared: the service signs nothing, or the page did not answer 2xx
 * (then nothing else is requested).
 * @example signedAgentNotCompared({ signed: false, status: 200 }).words // 'Not compared: this service has no …'
 */
export function signedAgentNotCompared(page: { signed: boolean; status: number }): SignedAgentAccess {
  if (!page.signed) {
    return { signed: false, signedStatus: null, unsignedStatus: null, differs: null, words: 'Not compared: this service has no Web Bot Auth key set up, so its requests were not signed.' };
  }
  return { signed: true, signedStatus: page.status, unsignedStatus: null, differs: null, words: `Not compared: the page answered ${page.status} to the signed request, so nothing else was requested.` };
}

function failureWords(err: unknown): string {
  if (err instanceof OutboundRefusedError) return "it was not sent (this check's request limits)";
  if (err instanceof FetchFailedError) return `it got no answer (${err.code})`;
  if (err instanceof FetchRefusedError) return 'it was redirected to an address this check does not fetch';
  return 'it got no answer';
}

/**
 * Compares the page's signed answer with the same request unsigned. Never rejects.
 * @example const access = await compareSignedAgent({ signed: true, url: page.url, status: page.status }, fetchOptions);
 *   access.differs // true when, say, the signed request got 200 and the unsigned one 403
 */
export async function compareSignedAgent(
  page: { signed: boolean; url: string; status: number },
  fetchOptions: Pick<SafeFetchOptions, 'signal' | 'lookup' | 'hostMap' | 'outbound'>,
): Promise<SignedAgentAccess> {
  if (!page.signed) return signedAgentNotCompared(page);
  const signedStatus = page.status;
  let unsignedStatus: number;
  try {
    const res = await safeFetch(new URL(page.url), {
      ...fetchOptions,
      signer: null,
      timeoutMs: UNSIGNED_TIMEOUT_MS,
      maxBytes: UNSIGNED_MAX_BYTES,
      maxRedirects: SIGNED_AGENT_MAX_REDIRECTS,
    });
    unsignedStatus = res.status;
  } catch (err) {
    return { signed: true, signedStatus, unsignedStatus: null, differs: null, words: `The page was fetched signed (${signedStatus}); the same request unsigned could not be compared: ${failureWords(err)}.` };
  }
  const differs = unsignedStatus !== signedStatus;
  const words = differs
    ? `The site treats signed agents differently: signed with Web Bot Auth the page answered ${signedStatus}, the same request unsigned ${unsignedStatus}.`
    : `No difference seen: the page answered ${signedStatus} both signed with Web Bot Auth and unsigned.`;
  return { signed: true, signedStatus, unsignedStatus, differs, words };
}
