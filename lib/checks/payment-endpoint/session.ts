import { createOutboundGate, registrableDomain, type OutboundGate, type OutboundSpend, type OutboundSummary } from '@/lib/outbound/outbound';
import { FetchFailedError, FetchRefusedError, OutboundRefusedError, safeFetch, type FetchResult, type LookupFn } from '@/lib/outbound/safe-fetch';
import type { HostMap } from '@/lib/outbound/host-map';
import type { SentRequest } from './types';

// Every request the endpoint check sends goes through one ProbeHttp: the SSRF guard and the outbound gate of
// lib/outbound, a per-check cap for each registrable domain reached, and a log the report prints in full.

/** Requests one check sends to any one registrable domain (the seller's, or an MCP endpoint's named explicitly). */
export const MAX_REQUESTS_PER_DOMAIN = 25;
/** Response headers read per answer: a 402's terms ride in headers, and Node's default of 16 KiB is itself a finding. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Response body bytes read per answer. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The unpaid request must be answered within this (the reachability item's limit); every other request too. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** Redirects followed per request: a paid endpoint should answer where it is asked. */
const MAX_REDIRECTS = 2;

/** What one request asks for. */
interface ProbeRequest {
  /** Which probe sends it and why, as the report's request list shows it ("unpaid request"). */
  purpose: string;
  method: 'GET' | 'POST' | 'OPTIONS';
  url: string | URL;
  headers?: Readonly<Record<string, string>>;
  /** Sent as is (JSON already serialised). */
  body?: string;
  accept?: string;
}

/** An HTTP answer (any status), or why none came: `refused` (not sent: SSRF guard, outbound budget, the per-check cap), `failed` (DNS, connect, TLS, timeout, a bad response). */
export type ProbeAnswer =
  | { kind: 'answer'; response: FetchResult; ms: number }
  | { kind: 'refused'; reason: 'address' | 'budget' | 'cap'; message: string; retryAfterMs?: number; domain?: string }
  | { kind: 'failed'; code: string; message: string };

export interface ProbeHttp {
  /**
   * Sends one request under every bound, logs it, and never throws for the network's sake.
   * @example const a = await http.send({ purpose: 'unpaid request', method: 'POST', url, body: '{}', headers: { 'content-type': 'application/json' } }); if (a.kind === 'answer') a.response.status
   */
  send(request: ProbeRequest): Promise<ProbeAnswer>;
  /** Requests sent or refused so far, in order. */
  log(): readonly SentRequest[];
  /** Requests still allowed to `url`'s registrable domain in this check. */
  remaining(url: string | URL): number;
  /** What the outbound gate counted (domains, refusals). */
  outbound(): OutboundSummary;
}

export interface ProbeHttpOptions {
  /** The hosts this check may reach: the endpoint's, and an MCP endpoint's named explicitly. Nothing else is sent anything. */
  own: readonly string[];
  signal: AbortSignal;
  spendOutbound?: OutboundSpend;
  hostMap?: HostMap;
  lookup?: LookupFn;
  /** Told when any host first answers over HTTP. */
  answered?: () => void;
}

/**
 * A ProbeHttp for one check.
 * @example const http = probeHttp({ own: [url.hostname], signal }); await http.send({ purpose: 'llms.txt', method: 'GET', url: new URL('/llms.txt', url) })
 */
export function probeHttp({ own, signal, spendOutbound, hostMap, lookup, answered }: ProbeHttpOptions): ProbeHttp {
  // A request to any other domain is refused outright (thirdPartyCap 0): discovery documents name URLs, and a
  // check must never be a way to send someone else traffic.
  const gate: OutboundGate = createOutboundGate({ own, thirdPartyCap: 0, ...(spendOutbound ? { spend: spendOutbound } : {}) });
  const owned = new Set(own.map(registrableDomain));
  const sent = new Map<string, number>();
  const log: SentRequest[] = [];
  let told = false;

  return {
    async send(request) {
      const url = new URL(request.url);
      const domain = registrableDomain(url.hostname);
      const entry: SentRequest = { purpose: request.purpose, method: request.method, url: url.href, status: null, bytes: 0, ms: 0 };
      log.push(entry);
      if (!owned.has(domain)) {
        entry.error = `not sent: ${domain} is neither the endpoint's domain nor an MCP endpoint named in the request`;
        return { kind: 'refused', reason: 'cap', message: entry.error, domain };
      }
      const count = sent.get(domain) ?? 0;
      if (count >= MAX_REQUESTS_PER_DOMAIN) {
        entry.error = `not sent: this check has sent ${domain} its ${MAX_REQUESTS_PER_DOMAIN} requests`;
        return { kind: 'refused', reason: 'cap', message: entry.error, domain };
      }
      sent.set(domain, count + 1);
      const started = performance.now();
      try {
        const response = await safeFetch(url, {
          signal,
          outbound: gate,
          method: request.method,
          ...(request.body !== undefined ? { body: request.body } : {}),
          ...(request.headers ? { headers: request.headers } : {}),
          accept: request.accept ?? 'application/json, text/event-stream;q=0.9, */*;q=0.5',
          timeoutMs: REQUEST_TIMEOUT_MS,
          headersTimeoutMs: REQUEST_TIMEOUT_MS,
          maxBytes: MAX_BODY_BYTES,
          maxHeaderBytes: MAX_HEADER_BYTES,
          maxRedirects: MAX_REDIRECTS,
          ...(hostMap ? { hostMap } : {}),
          ...(lookup ? { lookup } : {}),
        });
        const ms = Math.round(performance.now() - started);
        Object.assign(entry, { status: response.status, bytes: response.bytesRead, ms });
        if (!told) {
          told = true;
          answered?.();
        }
        return { kind: 'answer', response, ms };
      } catch (error) {
        entry.ms = Math.round(performance.now() - started);
        if (error instanceof OutboundRefusedError) {
          entry.error = `not sent: ${error.message}`;
          const reason = error.code === 'budget' ? 'budget' : 'cap';
          return { kind: 'refused', reason, message: error.message, retryAfterMs: error.retryAfterMs, domain: error.domain };
        }
        if (error instanceof FetchRefusedError) {
          entry.error = `not sent: ${error.message}`;
          return { kind: 'refused', reason: 'address', message: error.message, domain };
        }
        if (error instanceof FetchFailedError) {
          entry.error = error.message;
          return { kind: 'failed', code: error.code, message: error.message };
        }
        throw error;
      }
    },
    log: () => log,
    remaining: (target) => MAX_REQUESTS_PER_DOMAIN - (sent.get(registrableDomain(new URL(target).hostname)) ?? 0),
    outbound: () => gate.summary(),
  };
}
