// CHECK_HOST_MAP: test and demo plumbing that sends a host name (e.g. site.test) to a local server, past
// the private-address guard. It must never be in force in production, where it would let anyone reach
// whatever it points at. resolveHostMap is the one place that reads it and the one place that refuses it:
// the configuration check at startup, URL validation, the check and every fetch all ask it.

import { isIP } from 'node:net';

export interface HostMapEntry {
  /** IP literal of the local server standing in for the host. */
  address: string;
  port: number;
  /**
   * `http` when the entry was written `http://ip:port`: the server speaks plain HTTP only, so an https:// address
   * of the host fails as it would on the internet instead of being served over HTTP and reported as HTTPS. Without
   * a scheme the server stands in for both (the test fixtures act out http -> https redirects).
   */
  scheme?: 'http';
}

/** Hostname -> local server. Test and demo plumbing only; see parseHostMap. */
export type HostMap = ReadonlyMap<string, HostMapEntry>;

/** The environment a host map is read from. */
export type HostMapEnv = Readonly<Record<string, string | undefined>>;

/** A host map was set while NODE_ENV is production. */
export class HostMapInProductionError extends Error {
  constructor() {
    super(
      'CHECK_HOST_MAP is set while NODE_ENV is production. It sends checks to local servers and bypasses the ' +
        'private-address guard; it is for tests and local demos only. Unset CHECK_HOST_MAP.',
    );
    this.name = 'HostMapInProductionError';
  }
}

/**
 * Parse a `host=ip:port,host2=[::1]:port,host3=http://ip:port` list. Throws on any malformed entry: a half-read map
 * would silently send a test's traffic to the real internet.
 * @example parseHostMap('site.test=127.0.0.1:4000').get('site.test') // { address: '127.0.0.1', port: 4000 }
 * @example parseHostMap('shop.test=http://127.0.0.1:8081').get('shop.test') // { address: '127.0.0.1', port: 8081, scheme: 'http' }
 */
export function parseHostMap(value: string | undefined | null): Map<string, HostMapEntry> {
  const map = new Map<string, HostMapEntry>();
  if (!value || !value.trim()) return map;
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const match = /^([^=\s]+)=(http:\/\/)?(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(entry);
    if (!match) throw new Error(`CHECK_HOST_MAP entry "${entry}" is not of the form host=ip:port or host=http://ip:port`);
    const host = match[1].toLowerCase().replace(/\.$/, '');
    const address = match[3] ?? match[4];
    const port = Number(match[5]);
    if (isIP(host) !== 0 || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(host)) {
      throw new Error(`CHECK_HOST_MAP entry "${entry}": "${host}" is not a host name`);
    }
    if (isIP(address) === 0) throw new Error(`CHECK_HOST_MAP entry "${entry}": "${address}" is not an IP address`);
    if (port < 1 || port > 65535) throw new Error(`CHECK_HOST_MAP entry "${entry}": port out of range`);
    map.set(host, match[2] ? { address, port, scheme: 'http' } : { address, port });
  }
  return map;
}

function isEmpty(map: string | HostMap | undefined): boolean {
  return map === undefined || (typeof map === 'string' ? map.trim() === '' : map.size === 0);
}

/**
 * The host map in force for one call: `override` when given (tests, demos), else CHECK_HOST_MAP.
 * @throws HostMapInProductionError when either is set while NODE_ENV is production (checked before
 *   parsing, so the refusal is what an operator sees), or parseHostMap's error for a malformed map.
 * @example resolveHostMap(undefined, { CHECK_HOST_MAP: 'site.test=127.0.0.1:4000' }).has('site.test') // true
 * @example resolveHostMap('site.test=127.0.0.1:4000', { NODE_ENV: 'production' }) // throws HostMapInProductionError
 */
export function resolveHostMap(override?: string | HostMap, env: HostMapEnv = process.env): HostMap {
  const map = override ?? env.CHECK_HOST_MAP;
  if (env.NODE_ENV === 'production' && !isEmpty(map)) throw new HostMapInProductionError();
  return typeof map === 'string' || map === undefined ? parseHostMap(map) : map;
}
