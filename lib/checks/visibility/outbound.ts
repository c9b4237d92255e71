// Where one check's requests go, and how many each place may get. Every request the check sends (each redirect
// hop, site file, probe, llms.txt link, sitemap child and render subrequest) asks the check's gate first, from
// inside safeFetch, after the SSRF guards and before anything is sent. The gate holds two limits:
//   - per registrable domain and minute, across checks and instances: an injected counter (`spend`) that the
//     paid operation builds over the store's fixed-window rate limit, since this layer knows no store;
//   - per check, a small fixed number of requests to any domain that is not the checked page's own (the domain
//     asked for and the one the page finally answered from), so a page cannot aim the check at a third party.
// Counting per registrable domain (tldts, private suffixes included) means that one site reached under many
// names (wildcard DNS, subdomains) shares one count, while each tenant of a hosting suffix (x.github.io) keeps
// its own.

import { getDomain } from 'tldts';

/** Requests one check may send to any one domain other than the checked page's own. */
export const THIRD_PARTY_REQUESTS_PER_DOMAIN = 8;
/** Domains listed one by one in a report's `site.outbound.byDomain`; the rest are summed in the totals. */
export const OUTBOUND_REPORT_MAX_DOMAINS = 20;

/** Why a request was not sent: the domain's budget for the minute is spent, or the check's cap for a third party. */
type OutboundRefusal = 'budget' | 'third-party-cap';

/**
 * Counts one request to `domain` against its budget for the minute, across checks and instances; `allowed`
 * false means it must not be sent, and `retryAfterMs` says when the window ends.
 */
export type OutboundSpend = (domain: string) => Promise<{ allowed: boolean; retryAfterMs: number }>;

/** A request the gate would not let out. */
export interface OutboundRefused {
  reason: OutboundRefusal;
  domain: string;
  retryAfterMs: number;
}

/** What one domain got from one check. */
interface OutboundDomain {
  domain: string;
  sent: number;
  refused: { budget: number; thirdPartyCap: number };
}

/** `site.outbound` of a visibility report. */
export interface OutboundSummary {
  /** Requests sent, every redirect hop counted. */
  requests: number;
  /** Requests not sent, by reason. */
  refused: { budget: number; thirdPartyCap: number };
  /** Domains the check sent or tried to send to. */
  domains: number;
  /** The domains with the most requests (sent and refused), at most OUTBOUND_REPORT_MAX_DOMAINS. */
  byDomain: OutboundDomain[];
}

export interface OutboundGate {
  /** Asked before each request to `url` is sent: null to send it, else why not (the refusal is counted). */
  admit(url: URL): Promise<OutboundRefused | null>;
  /** Makes `hostname`'s domain one of the checked page's own (no per-check cap). */
  addOwn(hostname: string): void;
  /** True when `hostname`'s domain is one of the checked page's own. */
  isOwn(hostname: string): boolean;
  /** The refusals so far, in order. */
  refusals(): readonly OutboundRefused[];
  /** The first error `spend` threw (a store that did not answer), if any: its request was refused, not sent. */
  failure(): unknown;
  summary(): OutboundSummary;
}

/**
 * The registrable domain of a hostname (public suffix list, private suffixes included); an IP literal or a
 * name the list cannot split counts as itself.
 * @example registrableDomain('a.b.attacker.test') // 'attacker.test'; registrableDomain('x.github.io') // 'x.github.io'
 */
export function registrableDomain(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/**
 * One check's gate. Without `spend` only the per-check cap applies (the command line, tests of one check).
 * @example
 * const gate = createOutboundGate({ own: ['site.test'], spend });
 * await safeFetch(url, { outbound: gate }); // throws FetchRefusedError('budget' | 'third-party-cap') when refused
 * gate.summary().requests // 1
 */
export function createOutboundGate({ own, spend, thirdPartyCap = THIRD_PARTY_REQUESTS_PER_DOMAIN }: { own: Iterable<string>; spend?: OutboundSpend; thirdPartyCap?: number }): OutboundGate {
  const owned = new Set<string>([...own].map(registrableDomain));
  const tally = new Map<string, OutboundDomain>();
  // Requests to a third party admitted or on their way through `spend`: counted before the await, so two
  // requests arriving together cannot both take the last place.
  const thirdParty = new Map<string, number>();
  const refused: OutboundRefused[] = [];
  let failure: unknown;

  const entry = (domain: string) => {
    let e = tally.get(domain);
    if (!e) tally.set(domain, (e = { domain, sent: 0, refused: { budget: 0, thirdPartyCap: 0 } }));
    return e;
  };
  const refuse = (r: OutboundRefused) => {
    refused.push(r);
    if (r.reason === 'budget') entry(r.domain).refused.budget++;
    else entry(r.domain).refused.thirdPartyCap++;
    return r;
  };

  return {
    async admit(url) {
      const domain = registrableDomain(url.hostname);
      const own = owned.has(domain);
      if (!own) {
        const taken = thirdParty.get(domain) ?? 0;
        if (taken >= thirdPartyCap) return refuse({ reason: 'third-party-cap', domain, retryAfterMs: 0 });
        thirdParty.set(domain, taken + 1);
      }
      if (spend) {
        // A counter that cannot answer refuses: nothing is sent that the budget could not count.
        const hit = await spend(domain).catch((err: unknown) => {
          failure ??= err;
          return { allowed: false, retryAfterMs: 0 };
        });
        if (!hit.allowed) {
          if (!own) thirdParty.set(domain, (thirdParty.get(domain) ?? 1) - 1);
          return refuse({ reason: 'budget', domain, retryAfterMs: hit.retryAfterMs });
        }
      }
      entry(domain).sent++;
      return null;
    },
    addOwn(hostname) {
      owned.add(registrableDomain(hostname));
    },
    isOwn(hostname) {
      return owned.has(registrableDomain(hostname));
    },
    refusals: () => refused,
    failure: () => failure,
    summary() {
      const all = [...tally.values()];
      const total = (f: (d: OutboundDomain) => number) => all.reduce((n, d) => n + f(d), 0);
      const weight = (d: OutboundDomain) => d.sent + d.refused.budget + d.refused.thirdPartyCap;
      return {
        requests: total((d) => d.sent),
        refused: { budget: total((d) => d.refused.budget), thirdPartyCap: total((d) => d.refused.thirdPartyCap) },
        domains: all.length,
        byDomain: all
          .sort((a, b) => weight(b) - weight(a) || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0))
          .slice(0, OUTBOUND_REPORT_MAX_DOMAINS)
          .map((d) => ({ domain: d.domain, sent: d.sent, refused: { ...d.refused } })),
      };
    },
  };
}
