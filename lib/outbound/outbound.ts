// Where one check's requests go, and how many each place may get. Every request the check sends (each redirect
// hop, site file, probe, llms.txt link, sitemap child and render subrequest) passes the check's gate twice, from
// inside safeFetch, after the URL rules and before anything is sent:
//   1. by name, before the name is resolved, so a refused hop costs no DNS query either: the per-check cap for a
//      domain that is not the checked page's own, and the domain's budget for the minute;
//   2. by address, once the name resolved and the one address the socket will use is chosen: the per-check cap
//      for an address the checked page's own names did not lead to, and the address's budget for the minute.
// The budgets (per registrable domain, per address: an IPv4 address, an IPv6 /64) hold across checks and
// instances: an injected counter (`spend`) that the paid operation builds over the store's fixed-window rate
// limit, since this layer knows no store. Counting both means that many names pointed at one address (free
// dynamic-DNS names are each a registrable domain) share that address's count, while one site reached under many
// names (wildcard DNS) shares its domain's. Names are resolved once per check, and at most
// MAX_LOOKUPS_PER_CHECK of them, so a page cannot turn the check into a stream of uncacheable DNS queries.

import { getDomain } from 'tldts';
import ipaddr from 'ipaddr.js';
import type { RequestLog } from './request-log';

/** Requests one check may send to any one domain, or any one address, other than the checked page's own. */
export const THIRD_PARTY_REQUESTS_PER_DOMAIN = 8;
/** Distinct names one check resolves at most; each is resolved once and its answer kept for the check. */
export const MAX_LOOKUPS_PER_CHECK = 40;
/** Domains listed one by one in a report's `site.outbound.byDomain`; the rest are summed in the totals. */
export const OUTBOUND_REPORT_MAX_DOMAINS = 20;

/**
 * Why a request was not sent: a budget for the minute is spent (its domain's or its address's), the check's cap
 * for a third party is reached (by domain or by address), or the check has resolved as many names as it may.
 */
type OutboundRefusal = 'budget' | 'third-party-cap' | 'lookup-cap';

/** What one budget counts: a registrable domain, or an address (an IPv4 address, an IPv6 /64, a mapped host:port). */
export interface OutboundTarget {
  kind: 'domain' | 'address';
  key: string;
}

/**
 * Counts one request to `target` against its budget for the minute, across checks and instances; `allowed`
 * false means it must not be sent, and `retryAfterMs` says when the window ends.
 */
export type OutboundSpend = (target: OutboundTarget) => Promise<{ allowed: boolean; retryAfterMs: number }>;

/** A request the gate would not let out. */
export interface OutboundRefused {
  reason: OutboundRefusal;
  domain: string;
  /** Set when the refusal was at the address (its budget, or the per-check cap for it). */
  address?: string;
  retryAfterMs: number;
}

/** Requests not sent, by reason. */
interface RefusedCounts {
  budget: number;
  thirdPartyCap: number;
  lookupCap: number;
}

/** What one domain got from one check. */
interface OutboundDomain {
  domain: string;
  sent: number;
  refused: RefusedCounts;
}

/** `site.outbound` of a visibility report. */
export interface OutboundSummary {
  /** Requests sent, every redirect hop counted. */
  requests: number;
  /** Requests not sent, by reason. */
  refused: RefusedCounts;
  /** Distinct names resolved (each once per check). */
  lookups: number;
  /** Domains the check sent or tried to send to. */
  domains: number;
  /** Distinct addresses the check sent to. */
  addresses: number;
  /** The domains with the most requests (sent and refused), at most OUTBOUND_REPORT_MAX_DOMAINS. */
  byDomain: OutboundDomain[];
}

/** The addresses a name has, as safeFetch resolves them. */
interface GateAddress {
  address: string;
  family: 4 | 6;
}

export interface OutboundGate {
  /** Asked before a hop's name is resolved: null to go on, else why not (the refusal is counted). */
  admit(url: URL): Promise<OutboundRefused | null>;
  /**
   * Resolves `hostname` once per check with `lookup` (a second ask gets the first answer), at most
   * MAX_LOOKUPS_PER_CHECK names; past that, the refusal (counted) instead of a query.
   */
  resolve<A extends GateAddress>(url: URL, lookup: (hostname: string) => Promise<A[]>): Promise<A[] | OutboundRefused>;
  /**
   * Asked once the hop's address is chosen, before a byte is sent: null to send it, else why not (counted, and
   * the hop's admission by name given back to the per-check cap). `key` is the address's budget key (addressKey).
   */
  admitAddress(url: URL, key: string): Promise<OutboundRefused | null>;
  /** Makes `hostname`'s domain one of the checked page's own (no per-check cap). */
  addOwn(hostname: string): void;
  /** True when `hostname`'s domain is one of the checked page's own. */
  isOwn(hostname: string): boolean;
  /** The refusals so far, in order. */
  refusals(): readonly OutboundRefused[];
  /** The first error `spend` threw (a store that did not answer), if any: its request was refused, not sent. */
  failure(): unknown;
  summary(): OutboundSummary;
  /** The check's request log (request-log.ts), when it keeps one: safeFetch writes each hop it sends or refuses to it. */
  readonly log: RequestLog | undefined;
}

/**
 * The key an address is counted under: an IPv4 address as itself (IPv4-mapped IPv6 as the IPv4 it carries), an
 * IPv6 address by its /64, since one host commonly holds a whole /64 and picks any address in it; with `port`
 * (a host-map stand-in, where a port stands for a host), `address:port`.
 * @example addressKey('2001:db8:1:2:3:4:5:6') // '2001:db8:1:2::/64'; addressKey('127.0.0.1', 4100) // '127.0.0.1:4100'
 */
export function addressKey(address: string, port?: number): string {
  const ip = ipaddr.process(address);
  if (port !== undefined) return ip.kind() === 'ipv6' ? `[${ip.toString()}]:${port}` : `${ip.toString()}:${port}`;
  if (ip.kind() === 'ipv4') return ip.toString();
  const network = (ip as ipaddr.IPv6).parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(network).toString()}/64`;
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
 * One check's gate. Without `spend` only the per-check caps apply (the command line, tests of one check). With
 * `log`, every request made through the gate is written to it.
 * @example
 * const gate = createOutboundGate({ own: ['site.test'], spend, log: createRequestLog() });
 * await safeFetch(url, { outbound: gate }); // throws FetchRefusedError('budget' | 'third-party-cap' | 'lookup-cap') when refused
 * gate.summary().requests // 1
 */
export function createOutboundGate({
  own,
  spend,
  thirdPartyCap = THIRD_PARTY_REQUESTS_PER_DOMAIN,
  maxLookups = MAX_LOOKUPS_PER_CHECK,
  log,
}: {
  own: Iterable<string>;
  spend?: OutboundSpend;
  log?: RequestLog;
  thirdPartyCap?: number;
  maxLookups?: number;
}): OutboundGate {
  const owned = new Set<string>([...own].map(registrableDomain));
  // Addresses the checked page's own names led to: a third party's name that leads there is the site itself.
  const ownAddresses = new Set<string>();
  const tally = new Map<string, OutboundDomain>();
  // Requests to a third party (by domain, by address) admitted or on their way through `spend`: counted before
  // the await, so two requests arriving together cannot both take the last place.
  const thirdParty = new Map<string, number>();
  const thirdPartyAddress = new Map<string, number>();
  const lookups = new Map<string, Promise<unknown>>();
  const addresses = new Set<string>();
  const refused: OutboundRefused[] = [];
  let failure: unknown;

  const entry = (domain: string) => {
    let e = tally.get(domain);
    if (!e) tally.set(domain, (e = { domain, sent: 0, refused: { budget: 0, thirdPartyCap: 0, lookupCap: 0 } }));
    return e;
  };
  const counts: Record<OutboundRefusal, keyof RefusedCounts> = { budget: 'budget', 'third-party-cap': 'thirdPartyCap', 'lookup-cap': 'lookupCap' };
  const refuse = (r: OutboundRefused) => {
    refused.push(r);
    entry(r.domain).refused[counts[r.reason]]++;
    return r;
  };
  const take = (counter: Map<string, number>, key: string) => {
    const taken = counter.get(key) ?? 0;
    if (taken >= thirdPartyCap) return false;
    counter.set(key, taken + 1);
    return true;
  };
  const giveBack = (counter: Map<string, number>, key: string) => counter.set(key, Math.max(0, (counter.get(key) ?? 1) - 1));
  // A counter that cannot answer refuses: nothing is sent that the budget could not count.
  const spent = async (target: OutboundTarget) =>
    spend
      ? spend(target).catch((err: unknown) => {
          failure ??= err;
          return { allowed: false, retryAfterMs: 0 };
        })
      : { allowed: true, retryAfterMs: 0 };

  return {
    async admit(url) {
      const domain = registrableDomain(url.hostname);
      const own = owned.has(domain);
      if (!own && !take(thirdParty, domain)) return refuse({ reason: 'third-party-cap', domain, retryAfterMs: 0 });
      const hit = await spent({ kind: 'domain', key: domain });
      if (hit.allowed) return null;
      if (!own) giveBack(thirdParty, domain);
      return refuse({ reason: 'budget', domain, retryAfterMs: hit.retryAfterMs });
    },
    async resolve(url, lookup) {
      const hostname = url.hostname.toLowerCase();
      let answer = lookups.get(hostname) as ReturnType<typeof lookup> | undefined;
      if (!answer) {
        if (lookups.size >= maxLookups) {
          const domain = registrableDomain(hostname);
          if (!owned.has(domain)) giveBack(thirdParty, domain);
          return refuse({ reason: 'lookup-cap', domain, retryAfterMs: 0 });
        }
        answer = lookup(hostname);
        lookups.set(hostname, answer);
      }
      return answer;
    },
    async admitAddress(url, key) {
      const domain = registrableDomain(url.hostname);
      const own = owned.has(domain);
      if (own) ownAddresses.add(key);
      const thirdPartyHere = !own && !ownAddresses.has(key);
      const undo = () => {
        if (!own) giveBack(thirdParty, domain);
        if (thirdPartyHere) giveBack(thirdPartyAddress, key);
      };
      if (thirdPartyHere && !take(thirdPartyAddress, key)) {
        if (!own) giveBack(thirdParty, domain);
        return refuse({ reason: 'third-party-cap', domain, address: key, retryAfterMs: 0 });
      }
      const hit = await spent({ kind: 'address', key });
      if (!hit.allowed) {
        undo();
        return refuse({ reason: 'budget', domain, address: key, retryAfterMs: hit.retryAfterMs });
      }
      addresses.add(key);
      entry(domain).sent++;
      return null;
    },
    addOwn(hostname) {
      owned.add(registrableDomain(hostname));
    },
    isOwn(hostname) {
      return owned.has(registrableDomain(hostname));
    },
    log,
    refusals: () => refused,
    failure: () => failure,
    summary() {
      const all = [...tally.values()];
      const total = (f: (d: OutboundDomain) => number) => all.reduce((n, d) => n + f(d), 0);
      const weight = (d: OutboundDomain) => d.sent + d.refused.budget + d.refused.thirdPartyCap + d.refused.lookupCap;
      return {
        requests: total((d) => d.sent),
        refused: {
          budget: total((d) => d.refused.budget),
          thirdPartyCap: total((d) => d.refused.thirdPartyCap),
          lookupCap: total((d) => d.refused.lookupCap),
        },
        lookups: lookups.size,
        domains: all.length,
        addresses: addresses.size,
        byDomain: all
          .sort((a, b) => weight(b) - weight(a) || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0))
          .slice(0, OUTBOUND_REPORT_MAX_DOMAINS)
          .map((d) => ({ domain: d.domain, sent: d.sent, refused: { ...d.refused } })),
      };
    },
  };
}
