// Waiting on work that cannot itself be cancelled (a DNS lookup, a store call, a browser's answer) under a
// signal that can: the wait ends when the signal aborts, and the work's own outcome is then ignored.

/**
 * The promise's outcome, or the signal's reason as a rejection if it aborts first.
 * @example const answers = await raceSignal(dns.promises.lookup(host, { all: true }), signal);
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
