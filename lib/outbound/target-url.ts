// The gate every user-supplied address passes before anything is fetched: the first request and
// every redirect hop. It works on the WHATWG-parsed URL, so odd IPv4 spellings (decimal, octal, hex,
// short forms) have already been normalised to dotted form and are caught as IP literals.
// DNS is not consulted here; safe-fetch vets the resolved addresses.

import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { HostMapInProductionError, resolveHostMap } from './host-map';

export const MAX_URL_LENGTH = 2000;

/**
 * Suffixes that never name a public web page: special-use names (RFC 6761, RFC 6762, RFC 7686,
 * RFC 8375, RFC 9476), names ICANN set aside because of name collision (.corp, .home, .mail) and
 * the conventions of private networks. A host equal to one of them or ending in `.<suffix>` is refused.
 */
const INTERNAL_SUFFIXES: readonly string[] = [
  'localhost',
  'localdomain',
  'local',
  'internal',
  'intranet',
  'lan',
  'home',
  'home.arpa',
  'arpa',
  'corp',
  'mail',
  'private',
  'priv',
  'test',
  'example',
  'invalid',
  'onion',
  'alt',
];

export interface NormalizeOptions {
  /**
   * Hosts that may use reserved names (e.g. `site.test`). Only the internal-name rules are relaxed
   * for them; scheme, port, credential and IP-literal rules still apply. Defaults to the hosts of
   * CHECK_HOST_MAP outside production.
   */
  allowHosts?: Iterable<string>;
}

/**
 * The hosts CHECK_HOST_MAP sends to local servers. A map refused in production counts as none here:
 * validating an address is not the place to report a misconfigured server, the fetch refuses it loudly.
 */
function hostsMappedByEnv(): Iterable<string> {
  try {
    return resolveHostMap().keys();
  } catch (error) {
    if (error instanceof HostMapInProductionError) return [];
    throw error;
  }
}

/** The address cannot be checked (before any request); `message` is a reason fit to show the user. */
export class InvalidTargetUrl extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidTargetUrl';
  }
}

function refuse(reason: string): never {
  throw new InvalidTargetUrl(reason);
}

/** Adds a scheme to bare input, without mistaking `example.com:443/x` for a scheme called `example.com`. */
function withScheme(input: string): string {
  if (input.includes('://')) return input;
  if (input.startsWith('//')) return `https:${input}`;
  const scheme = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(input);
  // `host:port...` has digits after the colon; anything else with a colon up front is a scheme
  // (mailto:, javascript:, data:, file:) and is left for the scheme rule to refuse.
  if (scheme && !/^\d+(?:[/?#]|$)/.test(scheme[2])) return input;
  return `https://${input}`;
}

function isIpLiteral(hostname: string): boolean {
  if (hostname.startsWith('[')) return true;
  // WHATWG has already rewritten every IPv4 spelling it accepts; ipaddr.js is a second opinion
  // in case some other layer later parses the name more loosely.
  return isIP(hostname) !== 0 || ipaddr.isValid(hostname);
}

function isInternalName(hostname: string): boolean {
  if (!hostname.includes('.')) return true;
  return INTERNAL_SUFFIXES.some((suffix) => hostname === suffix || hostname.endsWith(`.${suffix}`));
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Turn what a user typed into the one URL the check will fetch, or throw
 * `InvalidTargetUrl` with a reason fit to show them.
 */
export function normalizeTargetUrl(input: string, options: NormalizeOptions = {}): URL {
  if (typeof input !== 'string') refuse('The address must be a string.');
  const trimmed = input.trim();
  if (trimmed.length === 0) refuse('The address is empty.');
  if (trimmed.length > MAX_URL_LENGTH) refuse(`The address is longer than ${MAX_URL_LENGTH} characters.`);

  let url: URL;
  try {
    url = new URL(withScheme(trimmed));
  } catch {
    refuse('The address is not a valid URL.');
  }

  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    refuse('Only http:// and https:// addresses can be checked.');
  }
  if (url.username !== '' || url.password !== '') {
    refuse('The address must not contain a user name or password.');
  }
  // WHATWG drops :80 on http and :443 on https, so any port left is a non-default one.
  if (url.port !== '') {
    refuse('Only the default port can be checked (80 for http, 443 for https). To check a site on another port in development, give it a name in CHECK_HOST_MAP (for example shop.test=http://127.0.0.1:8081) and check http://shop.test/; /docs/self-hosting#local-sites says how.');
  }

  let hostname = url.hostname;
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname === '') refuse('The address has no host name.');
  if (isIpLiteral(hostname)) {
    refuse('IP addresses cannot be checked; use the site\'s domain name.');
  }
  if (hostname.length > 253) refuse('The host name is too long.');
  const labels = hostname.split('.');
  if (!labels.every((label) => LABEL.test(label))) {
    refuse('The host name is not a valid domain name.');
  }

  const allowed = new Set(
    [...(options.allowHosts ?? hostsMappedByEnv())].map((h) => h.toLowerCase().replace(/\.$/, '')),
  );
  if (!allowed.has(hostname) && isInternalName(hostname)) {
    refuse('Internal or reserved host names cannot be checked; use a public domain name.');
  }

  url.hostname = hostname;
  url.hash = '';
  return url;
}
