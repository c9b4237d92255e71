import net from 'node:net';
import { vi } from 'vitest';

/** One socket safe-fetch opened: the host it asked for, and the addresses its pinned resolver gave. */
export interface Dial {
  host: string;
  pinned: string[];
}

/**
 * Stands in for the internet: every socket `net.connect` opens is answered by the local server on
 * `port`, after recording (in `dialled`) which address the socket's own resolver would have connected
 * to. Undone by `vi.restoreAllMocks()`.
 */
export function answerEverySocketFrom(port: number, dialled: Dial[]): void {
  const realConnect = net.connect.bind(net) as (...args: unknown[]) => net.Socket;
  vi.spyOn(net, 'connect').mockImplementation(((options: net.NetConnectOpts & { lookup?: net.LookupFunction; host?: string }) => {
    const pinned: string[] = [];
    options.lookup?.(options.host ?? '', { all: true }, (err, addresses) => {
      if (!err && Array.isArray(addresses)) pinned.push(...addresses.map((a) => a.address));
    });
    dialled.push({ host: options.host ?? '', pinned });
    return realConnect({ host: '127.0.0.1', port });
  }) as unknown as typeof net.connect);
}
