// The only way the visibility check reaches a user-chosen site. Three guards, in order, on every hop:
//   1. the URL rules of normalizeTargetUrl (scheme, default port, no credentials, no IP, no internal name);
//   2. DNS resolved here, and every answer must be public unicast;
//   3. the socket is pinned to those vetted answers, so a resolver that changes its answer between our
//      check and the connect (DNS rebinding) is never asked again.
// Redirects are followed by hand so that each hop goes through all three. The body is decoded by us and
// read only up to a cap, because a hostile page can be arbitrarily large or a compression bomb.

import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { addAbortSignal, pipeline, Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { resolveHostMap, type HostMap } from './host-map';
import { addressKey, type OutboundGate, type OutboundRefused } from './outbound';
import { requestOutcomeOf, type RequestOutcome } from './request-log';
import { InvalidTargetUrl, normalizeTargetUrl } from './target-url';
import { countFetch } from '@/lib/metrics';
import { raceSignal } from '@/lib/abort';
import { processBotIdentity, type BotIdentity } from './web-bot-auth';

export const DEFAULT_MAX_BYTES = 512 * 1024;
export const MAX_REDIRECTS = 5;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** DNS as safeFetch sees it: every address the name has. Injectable so tests can lie. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeFetchOptions {
  /** Deadline for the whole check; aborting it stops this fetch wherever it is. */
  signal?: AbortSignal;
  /** Deadline for this fetch, all hops included. Default 15 s. */
  timeoutMs?: number;
  /** TCP + TLS handshake, per hop. Default 5 s. */
  connectTimeoutMs?: number;
  /** Request sent -> response headers, per hop. Default 10 s. */
  headersTimeoutMs?: number;
  /** Longest silence between body chunks. Default 10 s. */
  bodyTimeoutMs?: number;
  /** Bytes to read, counted both as received and as decoded. Default 512 KiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Accept request header. Defaults to one that prefers HTML. */
  accept?: string;
  /** Replaces the system resolver. */
  lookup?: LookupFn;
  /** Replaces CHECK_HOST_MAP (string form or parsed). Refused in production either way. */
  hostMap?: string | HostMap;
  /** Base of the docs link in the User-Agent. Defaults to APP_URL. */
  appUrl?: string;
  /** Replaces our own User-Agent (the access probes send each crawler's and a browser's). */
  userAgent?: string;
  /** The check's outbound gate (outbound.ts): asked before every hop is sent; a refused hop sends nothing. */
  outbound?: OutboundGate;
  /** Default GET. A 301/302/303 turns it into a GET without a body, as browsers do; 307/308 send it again. */
  method?: 'GET' | 'POST' | 'OPTIONS' | 'HEAD';
  /** The request body (sent with `method`), at most what the caller built: never read from the site. */
  body?: string;
  /** Headers of this request, on top of (and replacing) user-agent, accept and accept-encoding. */
  headers?: Readonly<Record<string, string>>;
  /** Bytes of response headers accepted, per hop (undici's maxHeaderSize). Default Node's 16 KiB. */
  maxHeaderBytes?: number;
  /**
   * Who signs each hop (Web Bot Auth, web-bot-auth.ts); unset: the process's identity from WEB_BOT_AUTH_KEY,
   * null: unsigned. Only a request under our own User-Agent is ever signed: a signature names this service, so
   * a request sent as a crawler or a browser must never carry one.
   */
  signer?: BotIdentity | null;
  /** What the request is for, in words, as the gate's request log lists each of its hops ("robots.txt"). */
  purpose?: string;
}

export interface FetchResult {
  requestedUrl: string;
  /** Address that answered, after redirects. */
  url: string;
  status: number;
  /** Lowercased names in the order the server sent them; repeated headers stay separate entries. */
  headers: Array<[string, string]>;
  /** First value of a header, or null. */
  header(name: string): string | null;
  /** Every value of a header, one per header line, unmerged. */
  headerAll(name: string): string[];
  /** Decoded text of the first maxBytes decoded bytes. */
  body: string;
  /** The same bytes before character decoding (content coding undone), for callers that pass them on as sent. */
  bytes: Buffer;
  bytesRead: number;
  truncated: boolean;
  redirects: Array<{ url: string; status: number }>;
  /** Milliseconds from the final hop's DNS lookup to its response headers. */
  ttfbMs: number;
}

export type FetchRefusedCode = 'invalid-url' | 'private-address' | 'budget' | 'third-party-cap' | 'lookup-cap';

/** The address, or one a redirect led to, is not one we will connect to. Message is fit to show. */
export class FetchRefusedError extends Error {
  readonly code: FetchRefusedCode;
  readonly url: string;
  constructor(code: FetchRefusedCode, message: string, url: string) {
    super(message);
    this.name = 'FetchRefusedError';
    this.code = code;
    this.url = url;
  }
}

/** What an outbound refusal says, fit to show. */
function refusalMessage({ reason, domain, address }: OutboundRefused): string {
  const where = address ? `The address ${address} (of ${domain})` : domain;
  switch (reason) {
    case 'budget':
      return `${where} has had as many requests from this service as it gets in a minute; this one was not sent.`;
    case 'third-party-cap':
      return `This check has sent ${address ? `the address ${address}` : domain} as many requests as it sends a site other than the one checked; this one was not sent.`;
    case 'lookup-cap':
      return `This check has resolved as many names as one check may; ${domain} was not looked up and nothing was sent.`;
  }
}

/**
 * The check's outbound gate would not send this hop: a budget for the minute is spent (the domain's or the
 * address's), the check's cap for a third party is reached, or the check's lookups are used up.
 */
export class OutboundRefusedError extends FetchRefusedError {
  readonly domain: string;
  /** The address's budget key, when the refusal was at the address. */
  readonly address: string | undefined;
  readonly retryAfterMs: number;
  constructor(refused: OutboundRefused, url: string) {
    super(refused.reason, refusalMessage(refused), url);
    this.address = refused.address;
    this.name = 'OutboundRefusedError';
    this.domain = refused.domain;
    this.retryAfterMs = refused.retryAfterMs;
  }
}

export type FetchFailedCode =
  | 'dns'
  | 'timeout'
  | 'connection'
  | 'tls'
  | 'too-many-redirects'
  | 'redirect-loop'
  | 'bad-response';

/** The site could not be fetched. Message is fit to show; the low-level error is kept as `cause` for logs. */
export class FetchFailedError extends Error {
  readonly code: FetchFailedCode;
  readonly url: string;
  constructor(code: FetchFailedCode, message: string, url: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'FetchFailedError';
    this.code = code;
    this.url = url;
  }
}

export function userAgent(appUrl: string = process.env.APP_URL || 'http://localhost:3000'): string {
  return `PaidAgentChecks/2.0 (+${appUrl.replace(/(?<!\/)\/+$/, '')}/docs)`;
}

const systemLookup: LookupFn = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

// IPv4-compatible IPv6 (RFC 4291, deprecated): the low 32 bits are an IPv4 address, so ::7f00:1 is 127.0.0.1
// to a stack that still honours the form. ipaddr.js calls the block unicast; no public host lives in it.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
// Every public IPv6 host lives in global unicast, 2000::/3 (RFC 4291 section 2.4). ipaddr.js calls much of the
// unassigned rest "unicast" too (e.g. ::1:0:0:1 in 0000::/8), so an address outside 2000::/3 is refused outright.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * True only for globally routable unicast; IPv4-mapped IPv6 is judged as the IPv4 it carries, and
 * IPv4-compatible IPv6 (::/96) is refused whatever it carries.
 * @example isPublicAddress('93.184.215.14') // true; '::ffff:10.0.0.1' and '::7f00:1' are false
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv6' && (ip.match(IPV4_COMPATIBLE) || !ip.match(IPV6_GLOBAL_UNICAST))) return false;
  return ip.range() === 'unicast';
}

interface Hop {
  /** Where undici connects: the URL itself, or the local stand-in of a mapped host. */
  connectUrl: string;
  hostname: string;
  addresses: ResolvedAddress[];
  /** What the address's budget counts this hop under (outbound.ts addressKey). */
  addressKey: string;
  extraHeaders: Record<string, string>;
}

type NodeLookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A resolver for the socket that knows only the answers we vetted. Anything else is an error rather
 * than a fall-back to real DNS, so a second, different answer can never reach connect().
 */
function pinnedLookup(pins: Map<string, ResolvedAddress[]>) {
  return (hostname: string, options: LookupOptions, callback: NodeLookupCallback): void => {
    const vetted = pins.get(hostname.toLowerCase());
    if (!vetted || vetted.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no vetted address for ${hostname}`);
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
      return;
    }
    if (options.all) callback(null, vetted.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, vetted[0].address, vetted[0].family);
  };
}

/**
 * Where one hop connects, and the one address it uses. A mapped host (tests, local demos) connects to its
 * stand-in; any other name is resolved through the gate (once per check, within its lookup cap) and every answer
 * must be public. The socket is then pinned to one vetted address, IPv4 first when the name has one, so the
 * address the gate counted is the address the request reaches.
 */
async function planHop(url: URL, hostMap: HostMap, lookup: LookupFn, signal: AbortSignal, outbound: OutboundGate | undefined): Promise<Hop> {
  const hostname = url.hostname;
  const mapped = hostMap.get(hostname);
  if (mapped) {
    if (mapped.scheme === 'http' && url.protocol === 'https:') {
      throw new FetchFailedError('tls', `${hostname} is mapped to a server that speaks plain HTTP only, so it has no HTTPS; check http://${url.host}${url.pathname} instead.`, url.href);
    }
    // Plain HTTP on the mapped port stands in for the default port of either scheme; the fixture is
    // told the scheme the URL asked for so it can act out http -> https redirects.
    const connect = new URL(url.href);
    connect.protocol = 'http:';
    connect.port = String(mapped.port);
    return {
      connectUrl: connect.href,
      hostname,
      addresses: [{ address: mapped.address, family: mapped.address.includes(':') ? 6 : 4 }],
      // A port stands in for a host here, so it is part of what the address's budget counts.
      addressKey: addressKey(mapped.address, mapped.port),
      extraHeaders: { host: url.host, 'x-forwarded-proto': url.protocol.slice(0, -1) },
    };
  }

  let answers: ResolvedAddress[];
  try {
    const resolved = await raceSignal(outbound ? outbound.resolve(url, lookup) : lookup(hostname), signal);
    if (!Array.isArray(resolved)) throw new OutboundRefusedError(resolved, url.href);
    answers = resolved;
  } catch (err) {
    if (signal.aborted || err instanceof OutboundRefusedError) throw err;
    throw new FetchFailedError('dns', `The name ${hostname} could not be resolved.`, url.href, err);
  }
  if (answers.length === 0) {
    throw new FetchFailedError('dns', `The name ${hostname} has no addresses.`, url.href);
  }
  const vetted: ResolvedAddress[] = [];
  for (const answer of answers) {
    // One private answer is enough to refuse: which answer connect() would use is not ours to choose.
    if (!isPublicAddress(answer.address)) {
      throw new FetchRefusedError(
        'private-address',
        `${hostname} resolves to a private, local or reserved address, which cannot be checked.`,
        url.href,
      );
    }
    const ip = ipaddr.process(answer.address);
    vetted.push({ address: ip.toString(), family: ip.kind() === 'ipv6' ? 6 : 4 });
  }
  const chosen = vetted.find((a) => a.family === 4) ?? vetted[0];
  return { connectUrl: url.href, hostname, addresses: [chosen], addressKey: addressKey(chosen.address), extraHeaders: {} };
}

/**
 * The decoder for a response's Content-Encoding (every header line of it), or null for none. At most one
 * coding is accepted: each layer costs a decoder and its buffers, and 16 KB of headers fit about 3,000
 * `gzip` layers, which took minutes of CPU and over 100 MB to undo. Sites send one; more is a failed fetch.
 * The decoder is lenient about a body cut short, as curl and undici's fetch are, so a body stopped at the
 * byte cap still yields what it holds.
 * @example contentDecoder(['gzip'], url) // a Gunzip stream; ['gzip, br'] throws FetchFailedError('bad-response')
 */
function contentDecoder(contentEncoding: string[], url: string): Transform | null {
  const codings = contentEncoding
    .flatMap((value) => value.split(','))
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return null;
  if (codings.length > 1) {
    throw new FetchFailedError(
      'bad-response',
      `The site sent the page with ${codings.length} content encodings stacked; the check reads at most one.`,
      url,
    );
  }
  const coding = codings[0];
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'deflate':
      return zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'br':
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      throw new FetchFailedError('bad-response', `The site sent the page in an encoding the check cannot read (${coding}).`, url);
  }
}

/**
 * Reads a body through its decoder, keeping at most `maxBytes`, counted both as received and as decoded:
 * the decoded cap stops a compression bomb, the received one a stream that decodes to little or nothing
 * (empty gzip members, for instance). `truncated` says either cap was reached. Aborting `signal` destroys
 * the body and the decoder wherever they are, including after the whole body has arrived, when the
 * socket (and so undici's own abort) is no longer involved.
 * @example const { bytes, truncated } = await readCapped(res.body, contentDecoder(['gzip'], url), { maxBytes: 512 * 1024, signal });
 */
export async function readCapped(
  body: Readable,
  decoder: Transform | null,
  { maxBytes, signal }: { maxBytes: number; signal: AbortSignal },
): Promise<{ bytes: Buffer; truncated: boolean }> {
  let receivedTruncated = false;
  async function* received(): AsyncGenerator<Buffer> {
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (room > 0) yield chunk.subarray(0, room);
        receivedTruncated = true;
        return;
      }
      size += chunk.length;
      yield chunk;
    }
  }
  const capped = Readable.from(received());
  const source: Readable = decoder
    ? (pipeline(capped, decoder, () => {
        // Errors surface through the iterator below; premature close after the cap is expected.
      }) as unknown as Readable)
    : capped;
  addAbortSignal(signal, source);

  const chunks: Buffer[] = [];
  let size = 0;
  let decodedTruncated = false;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += room;
        decodedTruncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    // Leaving the loop early destroys `source`; the raw body and decoder must go too, which aborts
    // the request and closes the socket instead of draining the rest of a large page.
    body.destroy();
    capped.destroy();
    decoder?.destroy();
  }
  return { bytes: Buffer.concat(chunks, size), truncated: receivedTruncated || decodedTruncated };
}

function charsetOf(contentType: string | null, bytes: Buffer): string {
  const declared = contentType && /charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  if (declared) return declared[1];
  if (contentType && /html/i.test(contentType)) {
    const head = bytes.subarray(0, 1024).toString('latin1');
    const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
    if (meta) return meta[1];
  }
  return 'utf-8';
}

// Bytes 0x80-0x9F of windows-1252. Node 20's TextDecoder mishandles this encoding (and its aliases
// latin1, iso-8859-1, us-ascii) outside the ASCII range, and it is still common on older sites.
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeText(bytes: Buffer, charset: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  if (decoder.encoding !== 'windows-1252') return decoder.decode(bytes);
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const codes = Array.from(bytes.subarray(i, i + 8192), (b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH.charCodeAt(b - 0x80) : b));
    out += String.fromCharCode(...codes);
  }
  return out;
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i].toLowerCase(), raw[i + 1]]);
  return out;
}

function errorCode(err: unknown): string {
  let e: unknown = err;
  // undici wraps socket errors; the useful code may sit one or two causes deep.
  for (let depth = 0; depth < 3 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return (err as { code?: string } | null)?.code ?? '';
}

function classify(err: unknown, url: string, signal: AbortSignal): Error {
  if (err instanceof FetchRefusedError || err instanceof FetchFailedError) return err;
  if (signal.aborted) return new FetchFailedError('timeout', 'The site did not answer within the time limit.', url, err);
  const code = errorCode(err);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new FetchFailedError('timeout', 'Connecting to the site timed out.', url, err);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new FetchFailedError('timeout', 'The site did not send a response in time.', url, err);
    case 'UND_ERR_BODY_TIMEOUT':
      return new FetchFailedError('timeout', 'The site stopped sending the page part way through.', url, err);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ENODATA':
      return new FetchFailedError('dns', 'The site\'s name could not be resolved.', url, err);
    case 'ECONNREFUSED':
      return new FetchFailedError('connection', 'The site refused the connection.', url, err);
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return new FetchFailedError('connection', 'The site could not be reached.', url, err);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return new FetchFailedError('connection', 'The connection to the site was reset.', url, err);
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
    case 'ERR_BROTLI_DECOMPRESSION_FAILED':
      return new FetchFailedError('bad-response', 'The site sent a compressed body that could not be decoded.', url, err);
  }
  if (/^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code) || code.includes('CERT')) {
    return new FetchFailedError('tls', 'The site\'s TLS certificate or handshake was not accepted.', url, err);
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return new FetchFailedError('bad-response', 'The site sent response headers larger than this service reads.', url, err);
  }
  if (code.startsWith('HPE_') || code === 'UND_ERR_INFO' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return new FetchFailedError('bad-response', 'The site sent an invalid HTTP response.', url, err);
  }
  if (/^(ERR_BROTLI|ERR_ZLIB|Z_)/.test(code)) {
    return new FetchFailedError('bad-response', 'The site sent a compressed body that could not be decoded.', url, err);
  }
  return new FetchFailedError('connection', 'The site could not be fetched.', url, err);
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Fetch a user-chosen URL with the SSRF guards, the redirect policy and the size cap described above. */
export async function safeFetch(url: URL, options: SafeFetchOptions = {}): Promise<FetchResult> {
  // Counted by outcome for GET /api/metrics: `ok` (any HTTP status), or the refusal or failure code.
  try {
    const result = await guardedFetch(url, options);
    countFetch('ok');
    return result;
  } catch (error) {
    countFetch(error instanceof FetchRefusedError || error instanceof FetchFailedError ? error.code : 'error');
    throw error;
  }
}

async function guardedFetch(url: URL, options: SafeFetchOptions): Promise<FetchResult> {
  const hostMap = resolveHostMap(options.hostMap);

  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  const lookup = options.lookup ?? systemLookup;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const allowHosts = [...hostMap.keys()];

  const requestedUrl = url.href;
  const baseHeaders = {
    'user-agent': options.userAgent ?? userAgent(options.appUrl),
    accept: options.accept ?? 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
    'accept-encoding': 'gzip, deflate, br',
  };
  let method = options.method ?? 'GET';
  // Each hop is one line of the check's request log, opened before the gate is asked (a refusal is a line too).
  const log = options.outbound?.log;
  const sentUserAgent = options.headers?.['user-agent'] ?? baseHeaders['user-agent'];
  let openLine: ((outcome: RequestOutcome) => void) | null = null;
  const openHop = (href: string) => {
    openLine = log?.start({ purpose: options.purpose ?? 'other', method, url: href, userAgent: sentUserAgent }) ?? null;
  };
  const closeHop = (outcome: RequestOutcome) => {
    openLine?.(outcome);
    openLine = null;
  };
  /** The hop about to be asked for, and its status once it answered: what a failure's line says. */
  let attempted = url.href;
  let answered: { status: number; contentType: string | null } | null = null;
  const logFailure = (err: Error) => {
    if (!log) return;
    const code = (err as { code?: unknown }).code;
    const outcome = requestOutcomeOf(typeof code === 'string' ? code : '', err.message);
    // The hop that redirected was closed already: what it led to is a line of its own, never sent.
    if (openLine === null) openHop(attempted);
    closeHop({ ...outcome, ...(answered && !outcome.refusedBy ? answered : {}) });
  };

  let current: URL;
  try {
    current = normalizeTargetUrl(url.href, { allowHosts });
  } catch (err) {
    if (err instanceof InvalidTargetUrl) {
      const refused = new FetchRefusedError('invalid-url', err.message, url.href);
      logFailure(refused);
      throw refused;
    }
    throw err;
  }

  const pins = new Map<string, ResolvedAddress[]>();
  const agent = new Agent({
    connect: { lookup: pinnedLookup(pins), timeout: options.connectTimeoutMs ?? 5_000 },
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    bodyTimeout: options.bodyTimeoutMs ?? 10_000,
    connections: 2,
    ...(options.maxHeaderBytes ? { maxHeaderSize: options.maxHeaderBytes } : {}),
  });

  const signer = options.userAgent !== undefined ? null : options.signer === undefined ? await processBotIdentity() : options.signer;

  const redirects: Array<{ url: string; status: number }> = [];
  const visited = new Set<string>([current.href]);
  let requestBody = options.body;
  try {
    for (;;) {
      const started = performance.now();
      attempted = current.href;
      answered = null;
      openHop(current.href);
      // The gate is asked for every hop: by name before the name is resolved, by address before a byte is sent.
      const byName = options.outbound ? await raceSignal(options.outbound.admit(current), signal) : null;
      if (byName) throw new OutboundRefusedError(byName, current.href);
      const hop = await planHop(current, hostMap, lookup, signal, options.outbound);
      const byAddress = options.outbound ? await raceSignal(options.outbound.admitAddress(current, hop.addressKey), signal) : null;
      if (byAddress) throw new OutboundRefusedError(byAddress, current.href);
      pins.set(hop.hostname, hop.addresses);

      const res = await request(hop.connectUrl, {
        dispatcher: agent,
        method,
        // Signed per hop: the signature covers the authority, which a redirect changes.
        headers: { ...baseHeaders, ...options.headers, ...hop.extraHeaders, ...(signer ? await signer.signRequest(current, method) : {}) },
        ...(requestBody !== undefined ? { body: requestBody } : {}),
        signal,
        responseHeaders: 'raw',
      });
      const ttfbMs = Math.round(performance.now() - started);
      // Destroying an unfinished undici body emits an abort error; we stop reading on purpose
      // (redirects, the size cap), and real failures still reach us through the body iterator.
      res.body.on('error', () => {});
      const headers = pairs(res.headers as unknown as string[]);
      const first = (name: string) => headers.find(([n]) => n === name.toLowerCase())?.[1] ?? null;
      const headerAll = (name: string) => headers.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v);

      answered = { status: res.statusCode, contentType: first('content-type') };

      const location = first('location');
      if (REDIRECT_STATUSES.has(res.statusCode) && location !== null) {
        res.body.destroy();
        redirects.push({ url: current.href, status: res.statusCode });
        let next: URL;
        try {
          next = new URL(location, current);
        } catch (err) {
          throw new FetchFailedError('bad-response', 'The site sent a redirect to an invalid address.', current.href, err);
        }
        closeHop({ ...answered, redirectTo: next.href });
        attempted = next.href;
        try {
          next = normalizeTargetUrl(next.href, { allowHosts });
        } catch (err) {
          if (err instanceof InvalidTargetUrl) {
            throw new FetchRefusedError(
              'invalid-url',
              `The site redirected to an address that cannot be checked: ${err.message}`,
              current.href,
            );
          }
          throw err;
        }
        if (visited.has(next.href)) {
          throw new FetchFailedError('redirect-loop', 'The site redirects in a loop.', current.href);
        }
        if (redirects.length > maxRedirects) {
          throw new FetchFailedError('too-many-redirects', `The site redirected more than ${maxRedirects} times.`, current.href);
        }
        visited.add(next.href);
        current = next;
        if (res.statusCode !== 307 && res.statusCode !== 308 && method !== 'HEAD') {
          method = 'GET';
          requestBody = undefined;
        }
        continue;
      }

      const decoder = contentDecoder(headerAll('content-encoding'), current.href);
      const { bytes, truncated } = await readCapped(res.body, decoder, { maxBytes, signal });
      const body = decodeText(bytes, charsetOf(first('content-type'), bytes));
      closeHop({ ...answered, bytes: bytes.length });
      return {
        requestedUrl,
        url: current.href,
        status: res.statusCode,
        headers,
        header: first,
        headerAll,
        body,
        bytes,
        bytesRead: bytes.length,
        truncated,
        redirects,
        ttfbMs,
      };
    }
  } catch (err) {
    const classified = classify(err, current.href, signal);
    logFailure(classified);
    throw classified;
  } finally {
    await agent.destroy().catch(() => {});
  }
}
