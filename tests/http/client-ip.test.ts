import { describe, expect, it } from 'vitest';
import { addressBucket, clientIp } from '@/lib/http/client-ip';
import { withPeer } from '@/lib/http/peer-address';

// Headers as a route handler sees them under `next start`: X-Forwarded-For ends with the socket peer.
const PEER = '203.0.113.50';
const seen = (sent: Record<string, string>, peer = PEER) => {
  const headers = new Headers(sent);
  headers.set('x-forwarded-for', withPeer(headers.get('x-forwarded-for') ?? undefined, peer));
  return headers;
};

describe('clientIp', () => {
  it('with no trusted proxy (the default) is the peer, whatever X-Real-IP, X-Forwarded-For or CF-Connecting-IP say', () => {
    const headers = seen({ 'x-real-ip': '198.51.100.1', 'x-forwarded-for': '198.51.100.2, 198.51.100.3', 'cf-connecting-ip': '198.51.100.4', 'x-vercel-forwarded-for': '198.51.100.5' });
    expect(clientIp(headers, 'none')).toBe(PEER);
    expect(clientIp(headers, 0)).toBe(PEER);
  });

  it('with n trusted hops is the entry n places left of the peer, or the left-most of a shorter chain', () => {
    // client-sent spoof, then what proxy 2 saw (the client), then what proxy 1 saw (proxy 2), then the peer (proxy 1)
    const headers = seen({ 'x-forwarded-for': '198.51.100.9, 192.0.2.10, 10.0.0.2' }, '10.0.0.1');
    expect(clientIp(headers, 1)).toBe('10.0.0.2');
    expect(clientIp(headers, 2)).toBe('192.0.2.10');
    expect(clientIp(headers, 3)).toBe('198.51.100.9');
    expect(clientIp(headers, 9)).toBe('198.51.100.9');
    expect(clientIp(seen({}, '192.0.2.7'), 2)).toBe('192.0.2.7');
  });

  it('behind Vercel reads x-vercel-forwarded-for, then the left-most X-Forwarded-For; behind Cloudflare CF-Connecting-IP', () => {
    expect(clientIp(seen({ 'x-vercel-forwarded-for': '192.0.2.1', 'x-forwarded-for': '192.0.2.2' }, '127.0.0.1'), 'vercel')).toBe('192.0.2.1');
    expect(clientIp(seen({ 'x-forwarded-for': '192.0.2.2' }, '127.0.0.1'), 'vercel')).toBe('192.0.2.2');
    expect(clientIp(seen({ 'cf-connecting-ip': '2001:db8::5', 'x-forwarded-for': '192.0.2.3' }), 'cloudflare')).toBe('2001:db8::/64');
  });

  it('accepts only IP addresses: anything else falls back to the peer, then to one shared bucket', () => {
    for (const junk of ['unknown', '', 'evil.example', '127.1', '0x7f000001', '1.2.3.4:80', '[::1]', '1.2.3.4 5.6.7.8', '999.1.1.1']) {
      expect(clientIp(seen({ 'x-forwarded-for': junk }), 1)).toBe(PEER);
      expect(clientIp(seen({ 'cf-connecting-ip': junk }), 'cloudflare')).toBe(PEER);
    }
    expect(clientIp(seen({}, 'garbage'), 'none')).toBe('unknown');
    expect(clientIp(new Headers(), 'none')).toBe('unknown');
  });

  it('groups IPv6 by /64 and reads IPv4-mapped IPv6 as IPv4', () => {
    expect(addressBucket('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressBucket('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucket(' 192.0.2.1 ')).toBe('192.0.2.1');
    expect(clientIp(seen({}, '::ffff:127.0.0.1'), 'none')).toBe('127.0.0.1');
  });
});

describe('withPeer', () => {
  it('appends the peer to what the client sent, and never lets a missing peer pass for one', () => {
    expect(withPeer(undefined, '192.0.2.1')).toBe('192.0.2.1');
    expect(withPeer('198.51.100.1', '192.0.2.1')).toBe('198.51.100.1, 192.0.2.1');
    expect(withPeer('198.51.100.1', undefined)).toBe('198.51.100.1, unknown');
  });
});
