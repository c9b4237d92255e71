// Next calls register() once when a server process starts: the place to refuse a bad
// configuration with one clear message instead of failing on the first request.
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startup } = await import('./lib/startup');
    startup();
  }
}
