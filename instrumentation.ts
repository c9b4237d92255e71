// Next calls register() once when a server process starts: the place to refuse a bad
// configuration with one clear message instead of failing on the first request.
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    // Before any request: per-IP rate limits need the socket's address, which Next does not pass on.
    const { appendPeerToForwardedFor } = await import('./lib/http/peer-address');
    appendPeerToForwardedFor();
    const { startup } = await import('./lib/startup');
    startup();
  }
}
