// Processor misbehaviour the local rails can act out on demand, shared by the facilitator and the Stripe
// fake. Each stands for a way a real processor fails that our clients must survive without charging:
//   down          the connection is dropped (nothing listening, a crashed process)
//   error500      a 5xx answer
//   hang          the request is accepted and never answered (a blackholed or wedged processor)
//   drip          200 headers at once, then one byte of whitespace every 200 ms, forever: defeats
//                 timeouts that only watch for socket inactivity
//   garbage       200 with a body that is not JSON (a proxy's error page)
//   garbage-json  200 with JSON of the wrong shape
//   late          the request IS processed (the payment happens), but only LATE_ANSWER_MS after it arrived,
//                 past the deadlines the fault tests give our clients: a charge that completes after we gave up
// Apart from `late`, a faulty request is never processed, so no payment is made behind the fault.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type ProcessorFault = 'down' | 'error500' | 'hang' | 'drip' | 'garbage' | 'garbage-json' | 'late' | null;

/** How long a `late` processor waits before doing the work (fault tests give our clients about 1 s). */
export const LATE_ANSWER_MS = 3_000;

/** Waits out a `late` fault before the server processes the request; resolves at once otherwise. */
export function lateness(fault: ProcessorFault): Promise<void> {
  return fault === 'late' ? new Promise((resolve) => setTimeout(resolve, LATE_ANSWER_MS)) : Promise.resolve();
}

/** Acts out the faults that need no knowledge of the server's API; returns true when it answered. */
export function actOutFault(fault: ProcessorFault, req: IncomingMessage, res: ServerResponse): boolean {
  switch (fault) {
    case 'down':
      req.socket.destroy();
      return true;
    case 'hang':
      req.resume();
      return true;
    case 'drip': {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
      return true;
    }
    case 'garbage':
      req.resume();
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return true;
    case 'garbage-json':
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"object":"unexpected","ok":"yes"}');
      return true;
    default:
      return false;
  }
}
