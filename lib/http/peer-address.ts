import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

// A route handler under `next start` sees only headers: NextRequest lost `ip` in Next 15, and Next's
// base server (node_modules/next/dist/server/base-server.js, handleRequestImpl) sets
// `x-forwarded-for ??= socket.remoteAddress`, i.e. only when the client sent none. A client that sends
// its own X-Forwarded-For therefore hides its address from every handler. Node publishes each request
// on the `http.server.request.start` channel synchronously before the server's 'request' event, so a
// subscriber can append the real peer first: the header then ends with the address we connected to,
// like a proxy that appends, and Next leaves it alone.

const INSTALLED = Symbol.for('paid-agent-checks.peer-address');

/**
 * X-Forwarded-For with the connecting peer appended ('unknown' when the socket has no address, so the
 * client's last entry never passes for the peer).
 * @example withPeer('1.2.3.4', '203.0.113.9') // '1.2.3.4, 203.0.113.9'
 */
export function withPeer(forwardedFor: string | undefined, peer: string | undefined): string {
  return forwardedFor ? `${forwardedFor}, ${peer ?? 'unknown'}` : (peer ?? 'unknown');
}

/**
 * Appends the socket peer to X-Forwarded-For of every request this process's HTTP servers receive.
 * Idempotent; called once from `instrumentation.ts`.
 * @example appendPeerToForwardedFor()
 */
export function appendPeerToForwardedFor(): void {
  const holder = globalThis as { [INSTALLED]?: diagnosticsChannel.Channel };
  if (holder[INSTALLED]) return;
  // Kept on globalThis: a channel with no reference left may be collected along with its subscriber.
  const channel = diagnosticsChannel.channel('http.server.request.start');
  channel.subscribe((message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    const forwarded = request.headers['x-forwarded-for'];
    request.headers['x-forwarded-for'] = withPeer(Array.isArray(forwarded) ? forwarded.join(', ') : forwarded, socket.remoteAddress);
  });
  holder[INSTALLED] = channel;
}
