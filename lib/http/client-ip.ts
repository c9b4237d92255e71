import ipaddr from 'ipaddr.js';
import type { Config } from '@/lib/config';

export type TrustedProxy = Config['TRUSTED_PROXY'];

/**
 * The rate-limit bucket of one address, or null when the text is not an IP address. IPv4 counts
 * per address; IPv6 per /64, the block one subscriber is usually given, so rotating through it
 * buys no extra calls. IPv4-mapped IPv6 (`::ffff:1.2.3.4`, how a dual-stack socket reports IPv4) is IPv4.
 * @example addressBucket('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 */
export function addressBucket(text: string | null | undefined): string | null {
  const candidate = text?.trim() ?? '';
  // Four-part decimal only: ipaddr.js also reads `127.1` and `0x7f000001`, which no proxy writes.
  if (ipaddr.IPv4.isValidFourPartDecimal(candidate)) return ipaddr.IPv4.parse(candidate).toString();
  if (!ipaddr.IPv6.isValid(candidate)) return null;
  const address = ipaddr.IPv6.parse(candidate);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const prefix = address.toByteArray().map((byte, i) => (i < 8 ? byte : 0));
  return `${ipaddr.fromByteArray(prefix).toString()}/64`;
}

/**
 * The client address for per-IP rate limits, as far as `trust` allows us to believe the headers.
 *
 * Under `next start`, X-Forwarded-For always ends with the connecting peer: `instrumentation.ts`
 * appends it (lib/http/peer-address.ts), because Next itself only fills the header from the socket
 * when the client sent none and otherwise passes the client's text on untouched. So:
 * - `none` (or 0): the peer, the right-most entry; nothing the client writes is believed.
 * - a hop count n: n proxies we run append X-Forwarded-For; the client is the entry n places left
 *   of the peer (or the left-most when the chain is shorter, i.e. it did not come through them all).
 * - `vercel`: Vercel's edge overwrites `x-vercel-forwarded-for` / `x-forwarded-for` with the client address.
 * - `cloudflare`: Cloudflare sets `cf-connecting-ip`; only sound when the origin accepts Cloudflare alone.
 * X-Real-IP is never read: proxies that set it also append X-Forwarded-For, and clients can send it.
 * A chosen value that is not an IP address falls back to the peer, then to one shared 'unknown' bucket.
 * @example clientIp(new Headers({ 'x-forwarded-for': '198.51.100.7, 10.0.0.2' }), 1) // '198.51.100.7'
 */
export function clientIp(headers: Headers, trust: TrustedProxy): string {
  const chain = (headers.get('x-forwarded-for') ?? '').split(',').map((entry) => entry.trim());
  const peer = chain[chain.length - 1];
  const hops = typeof trust === 'number' ? trust : 0;
  const claimed =
    trust === 'vercel' ? firstEntry(headers.get('x-vercel-forwarded-for')) ?? chain[0]
      : trust === 'cloudflare' ? headers.get('cf-connecting-ip')
        : chain[Math.max(0, chain.length - 1 - hops)];
  return addressBucket(claimed) ?? addressBucket(peer) ?? 'unknown';
}

function firstEntry(list: string | null): string | undefined {
  return list?.split(',')[0];
}
