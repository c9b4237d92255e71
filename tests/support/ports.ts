import net from 'node:net';

// Child servers (`next start`, redis-server) need their port before they start: redis-server cannot pick
// one itself (its port 0 means "no TCP"), and `next start` must be told APP_URL, which names the port, and
// must come back on the same port after a restart. So a port is taken from the kernel, released, and handed
// to the child. Another process can take it in between; then the child fails to bind, and we try again on a
// fresh port. The child is ready only when it says it is listening: a probe of the port could be answered by
// whoever took it.

/** What a launch returns when the child could not bind its port because another process holds it. */
export const PORT_TAKEN = Symbol('port taken');

/**
 * A loopback port that was free a moment ago. Pass it to a child only through `onFreePort`.
 * @example const port = await freePort();
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Runs `launch` on a free port, and on a new one each time it reports PORT_TAKEN.
 * `pickPort` replaces `freePort` (tests that stage a collision).
 * @example const redis = await onFreePort((port) => launchRedis(port));
 */
export async function onFreePort<T>(
  launch: (port: number) => Promise<T | typeof PORT_TAKEN>,
  { attempts = 5, pickPort = freePort }: { attempts?: number; pickPort?: () => Promise<number> } = {},
): Promise<T> {
  const taken: number[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = await pickPort();
    const started = await launch(port);
    if (started !== PORT_TAKEN) return started;
    taken.push(port);
  }
  throw new Error(`every port tried was taken by another process before the child bound it: ${taken.join(', ')}`);
}

/**
 * Resolves when `output()` matches `ready`, PORT_TAKEN when it shows EADDRINUSE-style `taken` and the child
 * exited, and rejects when the child exits otherwise or `ms` pass.
 * @example await untilListening(child, () => out, /Ready to accept connections/, /Address already in use/, 10_000);
 */
export async function untilListening(
  child: { exitCode: number | null; signalCode: NodeJS.Signals | null },
  output: () => string,
  ready: RegExp,
  taken: RegExp,
  ms: number,
): Promise<void | typeof PORT_TAKEN> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (ready.test(output())) return;
    if (child.exitCode !== null || child.signalCode !== null) {
      if (taken.test(output())) return PORT_TAKEN;
      throw new Error(`server exited with ${child.exitCode ?? child.signalCode} before listening:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server did not report listening within ${ms} ms:\n${output()}`);
}
