// One Chromium per process, on a profile of its own with preloading off, shared by every rendering, each in a
// fresh context (its own cookies, storage and cache, closed when the rendering ends). Launched on first use, replaced after RECYCLE.afterContexts
// contexts or once its processes hold more than RECYCLE.pssBytes (a long-lived browser grows), and closed by
// closeRenderer(). A small limiter bounds how many pages render at once and how many checks may wait.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import { descendantsMemory } from './proc-rss';

/**
 * When a browser is replaced: after `afterContexts` contexts, or once the memory (PSS, proc-rss.ts) of its
 * processes passes `pssBytes` (a fresh browser with two pages open holds about 300 MB). Mutable for tests only.
 */
export const RECYCLE = { afterContexts: 200, pssBytes: 450 * 1024 * 1024 };
/** Adjusts the launch options of the next browser launched. Tests only: they take the second wall down to prove the first. */
export const LAUNCH = { adjust: (options: LaunchOptions): LaunchOptions => options };
// Reading every process's smaps costs a few milliseconds each: the size is looked at every few contexts.
const MEASURE_EVERY = 5;
const LAUNCH_TIMEOUT_MS = 15_000;

/**
 * The second wall: whatever gets past request interception finds no network. Every connection is sent to a
 * proxy whose name cannot resolve, and every name resolves to nothing. Playwright's proxy option adds
 * `<-loopback>` to the bypass list, so 127.0.0.1 and localhost go to the dead proxy too instead of straight
 * to the machine. The WebRTC policy keeps UDP (STUN) off the network: measured here, the
 * `--force-webrtc-ip-handling-policy` spelling sends STUN packets anyway, `--webrtc-ip-handling-policy`
 * sends none. SharedWorker is switched off in Blink: a shared worker's requests are not seen by interception.
 * `memoryMb` caps V8's heap in each renderer; memory outside the heap (ArrayBuffers, canvas) has no Chromium
 * switch and is held by the watchdog (memory-watch.ts).
 * @example chromium.launch(launchOptions('/usr/bin/chromium', 512))
 */
export function launchOptions(executablePath: string, memoryMb = 512): LaunchOptions {
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
      // The heap's old space gets half the budget: the rest of a renderer (DOM, buffers, code) needs room too.
      `--js-flags=--max-old-space-size=${Math.max(32, Math.floor(memoryMb / 2))}`,
      '--disable-blink-features=SharedWorker',
      '--host-resolver-rules=MAP * ~NOTFOUND',
      '--webrtc-ip-handling-policy=disable_non_proxied_udp',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      `--disable-features=${DISABLED_FEATURES.join(',')}`,
    ],
  };
}

/**
 * Chromium features turned off. Chromium reads only the last `--disable-features` switch, and Playwright passes
 * one of its own before ours, so ours must repeat Playwright's list (playwright-core's chromiumSwitches) or those
 * features come back on: among them the restart of preflighted redirects that interception breaks, and the
 * start-up requests to Google's hosts. tests/visibility/render-guard.test.ts reads the running browser's command
 * line and fails when a feature Playwright disables is missing here.
 */
const DISABLED_FEATURES = [
  // Ours. HttpsUpgrades: Chromium would load an http:// page of a public-looking name over https instead, a page
  // the check never fetched (seen on next start: the https attempt failed and the report held Chromium's error
  // page). The rendered page must be the one served. The others are background traffic no rendering needs.
  'NetworkPrediction',
  'InterestFeedContentSuggestions',
  'OptimizationHints',
  'MediaRouter',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  // Playwright's.
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'LensOverlay',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Part of the first wall, in the profile every rendering's context inherits: preloading off (the "preload
 * pages" setting at "no preloading", which Chromium keeps in `net.network_prediction_options`). With it on,
 * Chromium opens a socket to the address of every navigation the moment the navigation is created (the page
 * itself, each iframe, object, embed, form submission and popup): `NavigationRequest` preconnects before its
 * request exists, so no route ever sees it. Measured with the proxy and resolver rules removed: the hostile
 * page made 3 such connections to 127.0.0.1, none with this setting. It also turns off the predictor's other
 * preconnects and prefetches. Chromium has no switch for it, only this preference, read when the profile loads.
 */
const PROFILE_PREFERENCES = { net: { network_prediction_options: 2 } };

// The profiles of running browsers, removed when each browser goes away (and at exit, whatever is left).
const profiles = new Set<string>();
const shutdowns = new WeakMap<Browser, () => Promise<void>>();
let removeAtExit = false;

// Synchronous: a few small files, and a process about to exit would not wait for an asynchronous removal.
function removeProfile(dir: string): void {
  profiles.delete(dir);
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // Left for the operating system's temporary-file cleanup.
  }
}

/**
 * A fresh profile directory holding PROFILE_PREFERENCES, and its removal (also done at exit, whatever is left).
 * The renderer server (server.ts) launches its browser on one too.
 * @example const profile = await createProfile(); try { … launch on profile.dir … } finally { profile.remove(); }
 */
export async function createProfile(): Promise<{ dir: string; remove(): void }> {
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', () => {
      for (const dir of profiles) removeProfile(dir);
    });
  }
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'pac-chromium-'));
  profiles.add(dir);
  try {
    await fs.promises.mkdir(path.join(dir, 'Default'));
    await fs.promises.writeFile(path.join(dir, 'Default', 'Preferences'), JSON.stringify(PROFILE_PREFERENCES));
  } catch (error) {
    removeProfile(dir);
    throw error;
  }
  return { dir, remove: () => removeProfile(dir) };
}

/** Launches Chromium on a fresh profile holding PROFILE_PREFERENCES; each rendering opens its own context in it. */
async function startBrowser(executablePath: string, memoryMb: number): Promise<Browser> {
  const { dir } = await createProfile();
  try {
    // A persistent context is the only way Playwright launches Chromium on a profile we wrote; its own
    // context stays empty, and the browser behind it opens a fresh context per rendering as any other would.
    const context = await chromium.launchPersistentContext(dir, LAUNCH.adjust(launchOptions(executablePath, memoryMb)));
    const browser = context.browser();
    if (!browser) {
      await context.close().catch(() => {});
      throw new Error('Chromium started without a browser to open contexts in');
    }
    browser.on('disconnected', () => removeProfile(dir));
    // Closing the persistent context is what waits for Chromium to exit: only then is its profile done with.
    shutdowns.set(browser, async () => {
      await context.close().catch(() => {});
      removeProfile(dir);
    });
    return browser;
  } catch (error) {
    removeProfile(dir);
    throw error;
  }
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

function launch(executablePath: string, memoryMb: number): Instance {
  launches++;
  const instance: Instance = { browser: startBrowser(executablePath, memoryMb), contexts: 0, active: 0, retiring: false };
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
  if (browser) await (shutdowns.get(browser) ?? (() => browser.close()))().catch(() => {});
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
 * @example const { browser, release } = await leaseBrowser('/usr/bin/chromium', 512); try { … } finally { release(); }
 */
export async function leaseBrowser(executablePath: string, memoryMb = 512): Promise<BrowserLease> {
  const instance = (current ??= launch(executablePath, memoryMb));
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

/** What `acquire` gives: a release for the slot, or why no slot is coming (the queue is full, or this waiter gave its place to another caller). */
type Admission = (() => void) | 'full' | 'displaced';

/**
 * Rendering slots shared fairly between callers. Each owner (whoever pays for the check) holds at most one
 * slot at a time; free slots go round robin to the waiting owner served least recently, so one caller's many
 * pages cannot keep others out. The queue is bounded; when it is full, a newcomer takes the place of the
 * newest waiter of the owner with the most waiters (when that owner has more waiting than the newcomer would).
 */
export interface Limiter {
  acquire(owner: string, signal: AbortSignal): Promise<Admission>;
  /** True while `owner` holds a slot. */
  holds(owner: string): boolean;
  readonly running: number;
  readonly waiting: number;
}

interface Waiter {
  owner: string;
  signal: AbortSignal;
  arrived: number;
  settle(admission: Admission): void;
  onAbort(): void;
}

/**
 * @example const slot = await limiter.acquire(owner, signal); if (typeof slot !== 'function') skip(slot); else try { … } finally { slot(); }
 * @throws the signal's reason when it aborts while waiting.
 */
export function createLimiter(limit: number, queue: number): Limiter {
  const holding = new Set<string>();
  const waiters = new Map<string, Waiter[]>();
  // When each owner was last given a slot (a turn counter); kept while the owner runs or waits.
  const lastServed = new Map<string, number>();
  let turn = 0;
  let arrivals = 0;
  let waiting = 0;

  const forgetIfIdle = (owner: string) => {
    if (!holding.has(owner) && !waiters.has(owner)) lastServed.delete(owner);
  };
  const remove = (waiter: Waiter) => {
    const list = waiters.get(waiter.owner);
    const i = list ? list.indexOf(waiter) : -1;
    if (!list || i < 0) return false;
    list.splice(i, 1);
    if (list.length === 0) waiters.delete(waiter.owner);
    waiting--;
    waiter.signal.removeEventListener('abort', waiter.onAbort);
    return true;
  };
  const grant = (owner: string): (() => void) => {
    holding.add(owner);
    lastServed.set(owner, ++turn);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      holding.delete(owner);
      forgetIfIdle(owner);
      pump();
    };
  };
  const pump = () => {
    while (holding.size < limit) {
      let next: Waiter | null = null;
      for (const [owner, list] of waiters) {
        if (holding.has(owner)) continue;
        const candidate = list[0]!;
        const a = lastServed.get(owner) ?? 0;
        const b = next ? (lastServed.get(next.owner) ?? 0) : Infinity;
        if (a < b || (a === b && next && candidate.arrived < next.arrived)) next = candidate;
      }
      if (!next) return;
      remove(next);
      next.settle(grant(next.owner));
    }
  };
  return {
    get running() {
      return holding.size;
    },
    get waiting() {
      return waiting;
    },
    holds: (owner) => holding.has(owner),
    acquire(owner, signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (holding.size < limit && !holding.has(owner)) return Promise.resolve(grant(owner));
      if (waiting >= queue) {
        const own = waiters.get(owner)?.length ?? 0;
        let longest: Waiter[] | null = null;
        for (const list of waiters.values()) if (!longest || list.length > longest.length) longest = list;
        if (!longest || longest.length <= own + 1) return Promise.resolve('full');
        const displaced = longest[longest.length - 1]!;
        remove(displaced);
        forgetIfIdle(displaced.owner);
        displaced.settle('displaced');
      }
      return new Promise<Admission>((resolve, reject) => {
        const waiter: Waiter = {
          owner,
          signal,
          arrived: ++arrivals,
          settle: resolve,
          onAbort: () => {
            if (remove(waiter)) forgetIfIdle(owner);
            reject(signal.reason);
          },
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
        const list = waiters.get(owner);
        if (list) list.push(waiter);
        else waiters.set(owner, [waiter]);
        waiting++;
      });
    },
  };
}
