// One Chromium per process, shared by every rendering, each in a fresh context (its own cookies, storage and
// cache, closed when the rendering ends). Launched on first use, replaced after RECYCLE.afterContexts
// contexts or once its processes hold more than RECYCLE.pssBytes (a long-lived browser grows), and closed by
// closeRenderer(). A small limiter bounds how many pages render at once and how many checks may wait.

import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import { descendantsMemory } from './proc-rss';

/**
 * When a browser is replaced: after `afterContexts` contexts, or once the memory (PSS, proc-rss.ts) of its
 * processes passes `pssBytes` (a fresh browser with two pages open holds about 300 MB). Mutable for tests only.
 */
export const RECYCLE = { afterContexts: 200, pssBytes: 450 * 1024 * 1024 };
// Reading every process's smaps costs a few milliseconds each: the size is looked at every few contexts.
const MEASURE_EVERY = 5;
const LAUNCH_TIMEOUT_MS = 15_000;

/**
 * The second wall: whatever gets past request interception finds no network. Every connection is sent to a
 * proxy whose name cannot resolve, and every name resolves to nothing. Playwright's proxy option adds
 * `<-loopback>` to the bypass list, so 127.0.0.1 and localhost go to the dead proxy too instead of straight
 * to the machine. The WebRTC policy keeps UDP (STUN) off the network: measured here, the
 * `--force-webrtc-ip-handling-policy` spelling sends STUN packets anyway, `--webrtc-ip-handling-policy`
 * sends none.
 * @example chromium.launch(launchOptions('/usr/bin/chromium'))
 */
export function launchOptions(executablePath: string): LaunchOptions {
  return {
    executablePath,
    headless: true,
    // Root cannot use Chromium's sandbox (CI containers run as root); everyone else keeps it.
    chromiumSandbox: typeof process.getuid === 'function' && process.getuid() !== 0,
    timeout: LAUNCH_TIMEOUT_MS,
    // Signals are the process's to handle (lib/startup.ts closes the renderer); Playwright's own handlers would
    // swallow SIGTERM in a process that has no other handler. Its exit handler still kills the browser.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    proxy: { server: 'http://proxy.invalid:9' },
    args: [
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--disable-extensions',
      '--dns-prefetch-disable',
      '--host-resolver-rules=MAP * ~NOTFOUND',
      '--webrtc-ip-handling-policy=disable_non_proxied_udp',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      // HttpsUpgrades: Chromium would load an http:// page of a public-looking name over https instead, a page
      // the check never fetched (seen on next start: the https attempt failed and the report held Chromium's
      // error page). The rendered page must be the one served.
      '--disable-features=NetworkPrediction,InterestFeedContentSuggestions,OptimizationHints,MediaRouter,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable',
    ],
  };
}

interface Instance {
  browser: Promise<Browser>;
  contexts: number;
  active: number;
  retiring: boolean;
}

let current: Instance | null = null;
const retired = new Set<Instance>();

let launches = 0;

function launch(executablePath: string): Instance {
  launches++;
  const instance: Instance = { browser: chromium.launch(launchOptions(executablePath)), contexts: 0, active: 0, retiring: false };
  instance.browser.then(
    (browser) => browser.on('disconnected', () => forget(instance)),
    () => forget(instance),
  );
  return instance;
}

function forget(instance: Instance): void {
  if (current === instance) current = null;
  retired.delete(instance);
}

async function closeInstance(instance: Instance): Promise<void> {
  forget(instance);
  const browser = await instance.browser.catch(() => null);
  await browser?.close().catch(() => {});
}

function retire(instance: Instance): void {
  if (instance.retiring) return;
  instance.retiring = true;
  if (current === instance) current = null;
  retired.add(instance);
  if (instance.active === 0) void closeInstance(instance);
}

function tooBig(): boolean {
  return (descendantsMemory()?.pss ?? 0) > RECYCLE.pssBytes;
}

/** A browser lease: the browser to open one context in, and `release` once that context is closed. */
export interface BrowserLease {
  browser: Browser;
  release(): void;
}

/**
 * Lends the shared browser for one context, launching it on first use (or after it was recycled or crashed).
 * @throws the launch error when Chromium cannot start.
 * @example const { browser, release } = await leaseBrowser('/usr/bin/chromium'); try { … } finally { release(); }
 */
export async function leaseBrowser(executablePath: string): Promise<BrowserLease> {
  const instance = (current ??= launch(executablePath));
  instance.contexts++;
  instance.active++;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    instance.active--;
    if (!instance.retiring && (instance.contexts >= RECYCLE.afterContexts || (instance.contexts % MEASURE_EVERY === 0 && tooBig()))) retire(instance);
    if (instance.retiring && instance.active === 0) void closeInstance(instance);
  };
  try {
    const browser = await instance.browser;
    if (!browser.isConnected()) throw new Error('the browser went away');
    return { browser, release };
  } catch (error) {
    release();
    forget(instance);
    throw error;
  }
}

/** How many browsers this process has launched (tests of the recycling). */
export function browsersLaunched(): number {
  return launches;
}

/**
 * Closes every browser this process started; the next rendering launches a fresh one. For shutdown and tests.
 * @example process.once('SIGTERM', () => void closeBrowsers());
 */
export async function closeBrowsers(): Promise<void> {
  const all = [...(current ? [current] : []), ...retired];
  current = null;
  await Promise.all(all.map(closeInstance));
}

/** A bounded queue in front of `limit` slots: `acquire` resolves with a release, or null when the queue is full. */
export interface Limiter {
  acquire(signal: AbortSignal): Promise<(() => void) | null>;
  readonly running: number;
  readonly waiting: number;
}

/**
 * @example const release = await limiter.acquire(signal); if (!release) skip(); else try { … } finally { release(); }
 * @throws the signal's reason when it aborts while waiting.
 */
export function createLimiter(limit: number, queue: number): Limiter {
  let running = 0;
  const waiters: Array<{ grant(): void; signal: AbortSignal; onAbort(): void }> = [];
  const release = () => {
    running--;
    const next = waiters.shift();
    if (next) {
      next.signal.removeEventListener('abort', next.onAbort);
      running++;
      next.grant();
    }
  };
  const lease = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };
  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
    acquire(signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (running < limit) {
        running++;
        return Promise.resolve(lease());
      }
      if (waiters.length >= queue) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        const waiter = {
          signal,
          grant: () => resolve(lease()),
          onAbort: () => {
            const i = waiters.indexOf(waiter);
            if (i >= 0) waiters.splice(i, 1);
            reject(signal.reason);
          },
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
        waiters.push(waiter);
      });
    },
  };
}
