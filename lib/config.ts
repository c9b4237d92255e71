import { z } from 'zod';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { HostMapInProductionError, resolveHostMap } from '@/lib/outbound/host-map';
import { BotKeyError, parsePrivateKey } from '@/lib/outbound/bot-key';

// Configuration is read once from the environment. Every variable is named here, with its
// default, so an operator can read this file as the list of settings.

const emptyAsUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional());
const positiveInt = (fallback: number) => z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(fallback));
const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

export const BASE_USDC_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/**
 * The variables, as zod fields: this schema spreads them so a bad value stops the server at startup with
 * the others, and the renderer (lib/checks/visibility/render/settings.ts) reads them the same way in `npm run check`.
 */
export const RENDER_ENV = {
  // chromium: render every checked page; off: never; unset: render when a Chromium executable is found.
  RENDERER: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : v),
    z.enum(['chromium', 'off']).optional(),
  ),
  CHROMIUM_PATH: z.preprocess(emptyAsUndefined, z.string().optional()),
  // Pages rendered at once; each holds one Chromium renderer process (about 50-150 MB).
  RENDER_CONCURRENCY: positiveInt(2),
  // Checks that may wait for a rendering slot; past that a check's rendering is skipped, never failed.
  RENDER_QUEUE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(8)),
  // Memory (PSS, MB) one page's renderer process may hold; past it the page is ended and its rendering fails.
  RENDER_MEMORY_MB: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(64).default(512)),
  // A renderer server (`npm run renderer`) to render through instead of a Chromium of this process: one ws:// or
  // wss:// URL, or several separated by commas (used in turn, the next tried when one does not answer).
  RENDERER_URL: z.preprocess(
    emptyAsUndefined,
    z.string().regex(/^wss?:\/\/[^\s,]+(?:\s*,\s*wss?:\/\/[^\s,]+)*$/, 'must be ws:// or wss:// URLs separated by commas').optional(),
  ),
  // The secret shared with the renderer servers: both the service and `npm run renderer` need it.
  RENDERER_TOKEN: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  // `npm run renderer` only: where it listens, and how many pages (one connection each) it renders at once.
  RENDERER_SERVER_HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
  RENDERER_SERVER_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(3100)),
  RENDERER_SERVER_CONCURRENCY: positiveInt(4),
};

const EnvSchema = z.object({
  NODE_ENV: z.preprocess(emptyAsUndefined, z.enum(['development', 'production', 'test']).default('development')),
  APP_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).default('http://localhost:3000')),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.data')),
  REDIS_URL: optionalString.pipe(z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional()),
  KV_REST_API_URL: optionalUrl,
  KV_REST_API_TOKEN: optionalString,
  CREDITS_KEY_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  RATE_LIMIT_PER_IP: positiveInt(600),
  RATE_LIMIT_PER_KEY: positiveInt(300),
  // Each Checkout creation costs a Stripe API call (shared with the card rail) and a stored record.
  RATE_LIMIT_CHECKOUT_PER_IP: positiveInt(10),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  // Checks one key, and one client address, may have fail per window after holding an analysis thread to its
  // deadline (or killing it): such a failure is not charged, so past this the caller is
  // answered 429 before any charge until the window ends (lib/paid-call/costly-failures.ts).
  RATE_LIMIT_COSTLY_FAILURES: positiveInt(3),
  // Visibility checks per registrable domain of the checked address per minute, across all callers (REST and
  // MCP), so the service cannot be used to load a site; past it the call is answered 429 before anything is charged.
  CHECKS_PER_SITE_PER_MINUTE: positiveInt(6),
  // The earlier name of CHECKS_PER_SITE_PER_MINUTE, read when the new one is unset; kept for one release.
  VISIBILITY_CHECKS_PER_HOST_PER_MINUTE: optionalString,
  // Requests the visibility checks send any one registrable domain per minute, all checks and instances
  // together, every redirect hop, probe, site file and render subrequest counted where it actually goes.
  OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: positiveInt(120),
  // The same, per address the requests connect to (an IPv4 address, an IPv6 /64), whatever names led there: many
  // names pointed at one address share its count.
  OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE: positiveInt(120),
  // Sign-ins on the site (POST /api/session) one client address may try per window: each is a key guess.
  RATE_LIMIT_SESSION_PER_IP: positiveInt(10),
  // Reads of stored reports one client address may make per window: GET /api/reports and /api/reports/<id>
  // and the pages /reports/<id> and /account (in proxy.ts); all counted in the store, so every instance shares one budget.
  RATE_LIMIT_REPORTS_PER_IP: positiveInt(120),
  // How long the 200 body of a call paid with a credits key is kept for its key (GET /api/reports/<id>).
  REPORT_RETENTION_DAYS: positiveInt(30),
  MAX_BODY_BYTES: positiveInt(64 * 1024),
  // Host names /api/mcp answers at besides APP_URL's (comma-separated, e.g. a second domain in front of the
  // same service). Any other Host is a DNS rebinding and is refused 403 (lib/http/served-host.ts).
  MCP_ALLOWED_HOSTS: optionalString,
  // Who may tell us the client's address, for per-IP rate limits (lib/http/client-ip.ts): `none` (the
  // connecting peer), `vercel`, `cloudflare`, or the number of proxies in front that append X-Forwarded-For.
  TRUSTED_PROXY: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : v),
    z.union([z.enum(['none', 'vercel', 'cloudflare']), z.string().regex(/^(?:[0-9]|10)$/).transform(Number)], {
      error: 'must be none, vercel, cloudflare or a number of proxy hops from 0 to 10',
    }).default('none'),
  ),
  // How long a reserved call waits for its request to commit or release it before it returns by itself.
  // Fault tests shorten it; in service it should outlast the slowest check (20 s) with room to spare.
  CREDITS_RESERVATION_HOLD_SECONDS: positiveInt(120),
  // On SIGTERM: how long paid calls in flight may take to finish before they are cut short and their held
  // calls given back (lib/lifecycle.ts). Above the slowest check's budget (20 s) every call can finish.
  SHUTDOWN_GRACE_SECONDS: positiveInt(20),
  // Payment rails. A rail with incomplete configuration is not offered.
  MPP_SECRET_KEY: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  PAY_TO_ADDRESS: optionalString.pipe(evmAddress.optional()),
  USDC_ADDRESS: z.preprocess(emptyAsUndefined, evmAddress.default(BASE_USDC_ADDRESS)),
  X402_FACILITATOR_URL: optionalUrl,
  // JSON-RPC endpoint of the chain USDC is paid on: the reconciler reads there whether a settlement that
  // ended without an answer moved the money (lib/payments/settlements.ts).
  BASE_RPC_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).default('https://mainnet.base.org')),
  // How often the server asks the processors about unconfirmed settlements.
  SETTLEMENT_RECONCILE_SECONDS: positiveInt(60),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_NETWORK_ID: optionalString,
  STRIPE_API_URL: optionalUrl,
  STRIPE_WEBHOOK_SECRET: optionalString,
  CHECK_HOST_MAP: optionalString,
  // The rendered view of the visibility check (RENDERER, CHROMIUM_PATH, RENDER_CONCURRENCY, RENDER_QUEUE,
  // RENDER_MEMORY_MB): defined beside the renderer, which reads them the same way in the service and in
  // `npm run check`.
  ...RENDER_ENV,
  // GET /api/metrics answers only `Authorization: Bearer <METRICS_TOKEN>`; unset, the route answers 404.
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  // The service's Web Bot Auth key: an Ed25519 private key, as a JWK or a PKCS#8 PEM (newlines may be written \n).
  // Set, every request the service sends under its own user agent is signed (lib/outbound/web-bot-auth.ts) and its
  // public key is served at /.well-known/http-message-signatures-directory; unset, nothing is signed and that
  // route answers 404. A bad key stops startup, and no message quotes it.
  WEB_BOT_AUTH_KEY: optionalString.pipe(z.string().optional()).superRefine((value, ctx) => {
    if (value === undefined) return;
    try {
      parsePrivateKey(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof BotKeyError ? error.message : 'is not a usable key' });
    }
  }),
  // Set by Vercel in every build and function. There a function's disk is its own and lasts one instance,
  // so the SQLite store is refused (parseConfig).
  VERCEL: optionalString,
  // Where people write to us: the contact page, and every "contact support" on the site. Unset, it is
  // support@ the host of APP_URL (supportEmail below).
  SUPPORT_EMAIL: z.preprocess(emptyAsUndefined, z.email().optional()),
  // Who operates this instance, named on /terms, /privacy and /refunds: a legal name and a postal address.
  // Unset, those pages say plainly that the operator has not named itself (operatorOf below).
  OPERATOR_NAME: optionalString.pipe(z.string().trim().max(200).optional()),
  OPERATOR_ADDRESS: optionalString.pipe(z.string().trim().max(400).optional()),
});

/** Every variable the configuration reads (tests/config/env-documented.test.ts holds .env.example and the README to it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

/**
 * Each configuration variable's default as the schema applies it (undefined: none), so a page listing the
 * settings says what the service really does when one is unset.
 * @example configDefaults().RATE_LIMIT_PER_IP // '600'
 */
export function configDefaults(): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(EnvSchema.shape).map(([name, field]) => {
      const parsed = (field as z.ZodType).safeParse(undefined);
      return [name, parsed.success && parsed.data !== undefined ? String(parsed.data) : undefined];
    }),
  );
}

/**
 * The variables read outside the schema above, each with what reads it. With CONFIG_VARIABLES these are every
 * variable the code reads (tests/config/env-documented.test.ts holds both to the reads it finds), so the settings
 * list of /docs/self-hosting, made from the two, cannot leave one out.
 */
export const VARIABLES_READ_ELSEWHERE: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'the log: silent writes no lines',
  PROBE_WALLET_PRIVATE_KEY: "the endpoint check's paid round trip: its wallet",
  PROBE_NETWORKS: "the endpoint check's paid round trip: the networks it may pay on",
  PROBE_RPC_URLS: "the endpoint check's paid round trip: an RPC per network",
  PROBE_MAX_SPEND_UNITS: "the endpoint check's paid round trip: the most one check spends",
  PROBE_DAILY_SPEND_UNITS: "the endpoint check's paid round trip: the most all checks spend a day",
  PAC_KEY: 'npm run check -- --api: the prepaid key it pays with',
  PORT: 'npm run dev: its port',
  LOCAL_RAILS: 'npm run dev: off starts no local payment rails',
  ANVIL_BIN: 'the local rails: the anvil binary',
  RAILS_ANVIL_PORT: 'npm run rails: the local chain\'s port',
  RAILS_FACILITATOR_PORT: 'npm run rails: the x402 facilitator\'s port',
  RAILS_STRIPE_PORT: 'npm run rails: the card processor stand-in\'s port',
  STRIPE_WEBHOOK_URL: 'the local rails: where the card processor stand-in delivers events',
  NEXT_DIST_DIR: "the build: Next's build directory",
  PAC_BUILD_TOKEN: 'the tests: the one build a test run shares',
};

type Env = z.infer<typeof EnvSchema>;

export interface Config extends Omit<Env, 'CREDITS_KEY_SECRET'> {
  CREDITS_KEY_SECRET: string;
  storeKind: 'sqlite' | 'redis' | 'vercel-kv';
}

export class ConfigError extends Error {}

/** Why SQLite is refused on Vercel, said the way startup prints it. */
const VERCEL_NEEDS_SHARED_STORE =
  '  VERCEL is set but no shared store is: set KV_REST_API_URL and KV_REST_API_TOKEN (Vercel KV / Upstash Redis) or REDIS_URL. ' +
  'SQLite is refused on Vercel: each function instance has its own short-lived disk, so keys, balances, reservations and ' +
  'idempotency records would be split between instances and lost when one is recycled.';

/** Parses the environment into a Config, or throws one ConfigError naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(withRenamedSettings(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (Boolean(e.KV_REST_API_URL) !== Boolean(e.KV_REST_API_TOKEN)) {
    problems.push('  KV_REST_API_URL and KV_REST_API_TOKEN must be set together');
  }
  if (e.NODE_ENV === 'production') {
    if (!e.CREDITS_KEY_SECRET) problems.push('  CREDITS_KEY_SECRET: required in production (32+ random characters)');
    if (refusesHostMap(env)) problems.push('  CHECK_HOST_MAP: test-only setting, refused in production');
    if (e.WEB_BOT_AUTH_KEY && !e.APP_URL.startsWith('https://')) problems.push('  WEB_BOT_AUTH_KEY: set, but APP_URL is not https (Signature-Agent must name an https origin)');
  }
  const storeKind = e.REDIS_URL ? 'redis' : e.KV_REST_API_URL ? 'vercel-kv' : 'sqlite';
  if (e.VERCEL && storeKind === 'sqlite') problems.push(VERCEL_NEEDS_SHARED_STORE);
  if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);

  return { ...e, CREDITS_KEY_SECRET: e.CREDITS_KEY_SECRET ?? developmentSecret(e.DATA_DIR), storeKind };
}

/** Settings read under an earlier name when their new one is unset. */
function withRenamedSettings(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (env.CHECKS_PER_SITE_PER_MINUTE !== undefined || env.VISIBILITY_CHECKS_PER_HOST_PER_MINUTE === undefined) return env;
  return { ...env, CHECKS_PER_SITE_PER_MINUTE: env.VISIBILITY_CHECKS_PER_HOST_PER_MINUTE };
}

// The host map's production rule lives in resolveHostMap; startup asks it too, so a server so configured
// never starts rather than failing its first check.
function refusesHostMap(env: Record<string, string | undefined>): boolean {
  try {
    resolveHostMap(undefined, env);
    return false;
  } catch (error) {
    if (error instanceof HostMapInProductionError) return true;
    throw error;
  }
}

// Outside production a missing CREDITS_KEY_SECRET gets a random one kept beside the data it
// protects, so keys minted in development survive restarts and no secret lives in the repo.
function developmentSecret(dataDir: string): string {
  const file = path.join(dataDir, 'dev-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = crypto.randomBytes(32).toString('base64url');
    try {
      fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      // Another process created it first: use theirs.
      return fs.readFileSync(file, 'utf8').trim();
    }
  }
}

/**
 * The address people write to for support.
 * @example supportEmail({ SUPPORT_EMAIL: undefined, APP_URL: 'https://checks.example' }) // 'support@checks.example'
 */
export function supportEmail(config: Pick<Config, 'SUPPORT_EMAIL' | 'APP_URL'>): string {
  return config.SUPPORT_EMAIL ?? `support@${new URL(config.APP_URL).hostname}`;
}

/** What the legal pages say when the operator has not set OPERATOR_NAME or OPERATOR_ADDRESS: in words, since buyers read it. */
export const OPERATOR_NOT_SET = {
  name: 'Not named: the operator of this instance has not given its name.',
  address: 'Not given: the operator of this instance has not given a postal address.',
} as const;

/**
 * Who operates this instance, as the legal pages name it: the configured name and address, or a plain
 * statement that each is not set (never an invented company).
 * @example operatorOf({ OPERATOR_NAME: 'Example Ltd', OPERATOR_ADDRESS: '1 Example St' }) // { name: 'Example Ltd', nameSet: true, address: '1 Example St', addressSet: true }
 */
export function operatorOf(config: Pick<Config, 'OPERATOR_NAME' | 'OPERATOR_ADDRESS'>) {
  return {
    name: config.OPERATOR_NAME ?? OPERATOR_NOT_SET.name,
    nameSet: config.OPERATOR_NAME !== undefined,
    address: config.OPERATOR_ADDRESS ?? OPERATOR_NOT_SET.address,
    addressSet: config.OPERATOR_ADDRESS !== undefined,
  };
}

let cached: Config | undefined;

export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
