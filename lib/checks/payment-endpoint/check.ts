import { resolveHostMap } from '@/lib/outbound/host-map';
import type { OutboundSpend } from '@/lib/outbound/outbound';
import type { LookupFn } from '@/lib/outbound/safe-fetch';
import { normalizeTargetUrl } from '@/lib/outbound/target-url';
import { severityFor, SEVERITY_ORDER } from '@/lib/checks/severity';
import { bazaarExampleBody, fetchDocument, openapiExampleBody, termsOf, type EndpointInput, type ProbeContext, type ProbeItem } from './context';
import { probeSettings, type ProbeSettings } from './probe-settings';
import { findingSpec, ITEMS, RUBRIC_VERSION } from './rubric';
import { MAX_REQUESTS_PER_DOMAIN, probeHttp } from './session';
import type { Finding, ItemId, ItemResult, ProbeTransfer, SentRequest } from './types';

// The Agent Payment Endpoint Check: what an agent meets when it pays a seller's endpoint. It reads the seller's
// discovery documents, sends the declared request unpaid, then runs each rubric item's probe in order, and
// scores the items it could test.

export const CHECK_VERSION = '1.0.0';

/** The endpoint gave no HTTP answer at all (DNS, connect, TLS, timeout): nothing is charged. */
export class EndpointUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EndpointUnreachable';
  }
}

/** The endpoint's address is not one this service connects to (a private address, after DNS). */
export class EndpointRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EndpointRefused';
  }
}

/** The endpoint's domain has had its requests for the minute from this service: nothing was sent or charged. */
export class EndpointBudgetSpent extends Error {
  readonly retryAfterSeconds: number;
  readonly domain: string;
  constructor(message: string, retryAfterMs: number, domain: string) {
    super(message);
    this.name = 'EndpointBudgetSpent';
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    this.domain = domain;
  }
}

/** Verdict codes, best first. */
type EndpointVerdict = 'ready' | 'gaps' | 'not-ready';

export interface EndpointReport {
  checkVersion: string;
  rubricVersion: string;
  endpoint: { url: string; method: string; bodySource: ProbeContext['bodySource']; mcp: { url: string; tool: string } | null };
  /** Points earned over the points of the items tested, out of 100. */
  score: number;
  scoreMax: number;
  /** Points of the items tested (pass, warn or fail) out of all the rubric's points. */
  coverage: { testedPoints: number; totalPoints: number };
  verdict: EndpointVerdict;
  items: ItemResult[];
  findings: Finding[];
  requests: SentRequest[];
  transfers: ProbeTransfer[];
  /** Requests sent in all, and the most any one domain was sent. */
  outbound: { requests: number; maxPerDomain: number; domains: number };
}

export interface EndpointCheckOptions {
  signal?: AbortSignal;
  spendOutbound?: OutboundSpend;
  siteAnswered?: () => void;
  now?: Date;
  /** Replaces the operator's settings (tests). */
  probe?: ProbeSettings;
  lookup?: LookupFn;
}

/** The most an endpoint with a critical finding scores (the verdict is then `not-ready`). */
export const CRITICAL_SCORE_CAP = 49;

/** The whole check's deadline: every request has its own 10 s, and the paid round trip waits for settlements. */
const CHECK_BUDGET_MS = 120_000;

/**
 * Checks one paid endpoint as an agent meets it.
 * @example const report = await checkPaymentEndpoint({ url: 'https://api.example/paid', method: 'POST', paidRoundTrip: false }); report.score
 */
export async function checkPaymentEndpoint(input: EndpointInput, options: EndpointCheckOptions = {}): Promise<EndpointReport> {
  const hostMap = resolveHostMap();
  const allowHosts = [...hostMap.keys()];
  const url = normalizeTargetUrl(input.url, { allowHosts });
  const mcpUrl = input.mcp ? normalizeTargetUrl(input.mcp.url, { allowHosts }) : null;
  const finished = new AbortController();
  const signal = AbortSignal.any([AbortSignal.timeout(CHECK_BUDGET_MS), finished.signal, ...(options.signal ? [options.signal] : [])]);
  const http = probeHttp({
    own: [url.hostname, ...(mcpUrl ? [mcpUrl.hostname] : [])],
    signal,
    hostMap,
    ...(options.spendOutbound ? { spendOutbound: options.spendOutbound } : {}),
    ...(options.siteAnswered ? { answered: options.siteAnswered } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  try {
    const openapi = await fetchDocument(http, url, '/openapi.json', 'OpenAPI document');
    const { body, bodySource } = requestBody(input, openapi.json, url);
    const requestHeaders: Record<string, string> = body !== undefined ? { 'content-type': 'application/json' } : {};
    const unpaid = await http.send({ purpose: 'unpaid request', method: input.method, url, headers: requestHeaders, ...(body !== undefined ? { body } : {}) });
    if (unpaid.kind === 'failed') throw new EndpointUnreachable(`${url.href} gave no HTTP answer: ${unpaid.message}`);
    if (unpaid.kind === 'refused') {
      if (unpaid.reason === 'budget') throw new EndpointBudgetSpent(unpaid.message, unpaid.retryAfterMs ?? 60_000, unpaid.domain ?? url.hostname);
      throw new EndpointRefused(unpaid.message);
    }
    const terms = termsOf(unpaid.response);
    const llms = await fetchDocument(http, url, '/llms.txt', 'llms.txt');
    // A body built from nothing is replaced by the seller's own example once its 402 states one.
    const bazaarBody = bodySource === 'empty' ? bazaarExampleBody(terms.x402.decoded) : null;
    const ctx: ProbeContext = {
      input,
      url,
      http,
      requestHeaders,
      body: bazaarBody !== null ? JSON.stringify(bazaarBody) : body,
      bodySource: bazaarBody !== null ? 'bazaar' : bodySource,
      unpaid,
      unpaidResponse: unpaid.response,
      terms,
      discovery: { openapi, llms },
      probe: options.probe ?? probeSettings(),
      observed: { mcpTool: null },
      signal,
      now: options.now ?? new Date(),
    };

    const results = new Map<ItemId, ItemResult>();
    const findings: Finding[] = [];
    const transfers: ProbeTransfer[] = [];
    for (const { spec, probe } of runOrder(ITEMS)) {
      const outcome = await probe(ctx);
      let lost = 0;
      for (const fault of outcome.faults) {
        const known = findingSpec(fault.id);
        if (!known || known.item !== spec.id) throw new Error(`probe ${spec.id} reported ${fault.id}, which its catalog does not declare`);
        const pointsLost = outcome.state === 'not-applicable' || outcome.state === 'not-tested' ? 0 : Math.min(known.points, spec.points - lost);
        lost += pointsLost;
        findings.push({
          id: fault.id,
          item: spec.id,
          severity: severityFor(known.severity, pointsLost),
          title: known.title,
          pointsLost,
          observed: fault.observed,
          why: known.why,
          fix: known.fix,
          verify: known.verify,
          references: known.references,
        });
      }
      const tested = outcome.state === 'pass' || outcome.state === 'warn' || outcome.state === 'fail';
      results.set(spec.id, { id: spec.id, title: spec.title, state: outcome.state, points: tested ? spec.points - lost : 0, pointsMax: spec.points, why: outcome.why, evidence: outcome.evidence });
      transfers.push(...(outcome.transfers ?? []));
    }
    const items = ITEMS.map(({ spec }) => results.get(spec.id)!);

    const testedItems = items.filter((i) => i.state === 'pass' || i.state === 'warn' || i.state === 'fail');
    const testedPoints = testedItems.reduce((n, i) => n + i.pointsMax, 0);
    const earned = testedItems.reduce((n, i) => n + i.points, 0);
    const share = testedPoints > 0 ? Math.round((100 * earned) / testedPoints) : 0;
    // A critical finding is one an agent loses money or gets nothing to (a free paywall, a double charge, a payment
    // settled for a refused request): however well the rest scores, the endpoint is not one to pay.
    const score = findings.some((f) => f.severity === 'critical') ? Math.min(share, CRITICAL_SCORE_CAP) : share;
    const rank = (f: Finding) => SEVERITY_ORDER.indexOf(f.severity);
    findings.sort((a, b) => rank(a) - rank(b) || b.pointsLost - a.pointsLost);
    const requests = http.log();
    const perDomain = new Map<string, number>();
    for (const r of requests) if (!r.error?.startsWith('not sent')) perDomain.set(new URL(r.url).hostname, (perDomain.get(new URL(r.url).hostname) ?? 0) + 1);
    return {
      checkVersion: CHECK_VERSION,
      rubricVersion: RUBRIC_VERSION,
      endpoint: { url: url.href, method: input.method, bodySource: ctx.bodySource, mcp: input.mcp && mcpUrl ? { url: mcpUrl.href, tool: input.mcp.tool } : null },
      score,
      scoreMax: 100,
      coverage: { testedPoints, totalPoints: ITEMS.reduce((n, i) => n + i.spec.points, 0) },
      verdict: verdictOf(score, findings),
      items,
      findings,
      requests: [...requests],
      transfers,
      outbound: { requests: [...perDomain.values()].reduce((a, b) => a + b, 0), maxPerDomain: MAX_REQUESTS_PER_DOMAIN, domains: perDomain.size },
    };
  } finally {
    finished.abort();
  }
}

/** The items in the order they run: each where the rubric lists it, except one that reads another's findings, which waits for it. */
function runOrder(items: readonly ProbeItem[]): ProbeItem[] {
  const order = items.filter((i) => !i.runsAfter);
  for (const item of items.filter((i) => i.runsAfter)) {
    const at = order.findIndex((i) => i.spec.id === item.runsAfter);
    order.splice(at < 0 ? order.length : at + 1, 0, item);
  }
  return order;
}

function verdictOf(score: number, findings: readonly Finding[]): EndpointVerdict {
  const serious = findings.some((f) => f.severity === 'critical' || f.severity === 'high');
  if (score >= 90 && !serious) return 'ready';
  return score >= 50 ? 'gaps' : 'not-ready';
}

/** The body the endpoint is sent: the buyer's, else the seller's OpenAPI example, else `{}` (none for GET). */
function requestBody(input: EndpointInput, openapi: unknown, url: URL): { body: string | undefined; bodySource: ProbeContext['bodySource'] } {
  if (input.method === 'GET') return { body: undefined, bodySource: 'none' };
  if (input.body !== undefined) return { body: JSON.stringify(input.body), bodySource: 'given' };
  const example = openapiExampleBody(openapi, input.method, url.pathname);
  if (example !== null) return { body: JSON.stringify(example), bodySource: 'openapi' };
  return { body: '{}', bodySource: 'empty' };
}
