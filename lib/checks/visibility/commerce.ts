// What a crawler or agent must pay to get the page: the payment challenges seen on the page's own answer and
// on the answers to the crawler probes. Three kinds are recognised:
// - Cloudflare pay-per-crawl: a 402 with `crawler-price: <currency> <amount>` (and `crawler-error: <code>`
//   when a paying request was refused);
// - x402 (version 2): a `PAYMENT-REQUIRED` header holding base64 JSON `{ x402Version, accepts: [{ scheme,
//   network, amount, asset, payTo }] }`;
// - MPP: `WWW-Authenticate: Payment id=…, method=…, intent=…, request=<base64url JSON { amount, currency }>`.
// Pure functions over headers already received, run on the analysis thread.

/** Headers the probes keep for this question, besides access.ts's. */
export const COMMERCE_HEADERS = ['payment-required', 'www-authenticate'] as const;
/** Challenges listed, at most: the first ones, in page-then-probe order. */
export const COMMERCE_CHALLENGES_MAX = 4;

type ChallengeProtocol = 'pay-per-crawl' | 'x402' | 'mpp';

/** One payment challenge seen. */
interface PaymentChallenge {
  /** `page` (the check's own request) or the crawler token whose probe got it. */
  source: string;
  protocol: ChallengeProtocol;
  httpStatus: number | null;
  /** The price as stated: a decimal (pay-per-crawl), or the smallest-unit integer of x402 and MPP. */
  amount: string | null;
  /** A currency code, or the asset address (x402). */
  currency: string | null;
  /** The x402 network, or the MPP method. */
  network: string | null;
  /** Pay-per-crawl's `crawler-error` code. */
  error: string | null;
}

/** `site.commerce`. */
export interface Commerce {
  challenges: PaymentChallenge[];
  /** Crawlers whose probe was answered 402 with a pay-per-crawl price. */
  payPerCrawl: number;
  x402: boolean;
  mpp: boolean;
}

/** An answer with the headers this reads (lowercased names). */
export interface CommerceAnswer {
  source: string;
  status: number | null;
  headers: ReadonlyArray<readonly [string, string]>;
}

const short = (s: unknown, max = 64): string | null => (typeof s === 'string' || typeof s === 'number' ? String(s).trim().slice(0, max) || null : null);

function decodeJson(b64: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(b64.trim(), 'base64').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The `crawler-price` value (`USD 0.01`): currency and amount.
 * @example crawlerPrice('USD 0.01') // { currency: 'USD', amount: '0.01' }
 */
export function crawlerPrice(value: string): { currency: string | null; amount: string | null } {
  const parts = value.trim().split(/\s+/);
  if (parts.length >= 2) return { currency: short(parts[0], 8), amount: short(parts[1], 32) };
  return { currency: null, amount: short(parts[0], 32) };
}

/**
 * The auth-params of a `WWW-Authenticate: Payment …` challenge (RFC 9110 §11.2), or null when the header is
 * another scheme. Quoted values may hold commas; read forward.
 * @example paymentChallengeParams('Payment id="a", method="tempo"') // { id: 'a', method: 'tempo' }
 */
export function paymentChallengeParams(value: string): Record<string, string> | null {
  const v = value.trim();
  if (!/^payment\s/i.test(v)) return null;
  const out: Record<string, string> = {};
  let i = 'payment'.length;
  while (i < v.length) {
    while (i < v.length && /[\s,]/.test(v[i])) i++;
    let eq = i;
    while (eq < v.length && v[eq] !== '=' && v[eq] !== ',') eq++;
    const name = v.slice(i, eq).trim().toLowerCase();
    if (v[eq] !== '=') {
      i = eq + 1;
      continue;
    }
    let j = eq + 1;
    while (j < v.length && v[j] === ' ') j++;
    let param = '';
    if (v[j] === '"') {
      j++;
      while (j < v.length && v[j] !== '"') {
        if (v[j] === '\\' && j + 1 < v.length) j++;
        param += v[j];
        j++;
      }
      j++;
    } else {
      const end = v.indexOf(',', j);
      param = v.slice(j, end < 0 ? v.length : end).trim();
      j = end < 0 ? v.length : end;
    }
    if (name !== '' && !(name in out)) out[name] = param;
    i = j;
  }
  return out;
}

function challengesOf(answer: CommerceAnswer): PaymentChallenge[] {
  const out: PaymentChallenge[] = [];
  const header = (name: string) => answer.headers.filter(([n]) => n === name).map(([, v]) => v);
  const base = { source: answer.source, httpStatus: answer.status, amount: null, currency: null, network: null, error: null };
  const price = header('crawler-price')[0];
  const crawlerError = header('crawler-error')[0];
  if (price !== undefined || crawlerError !== undefined) {
    out.push({ ...base, protocol: 'pay-per-crawl', ...(price !== undefined ? crawlerPrice(price) : {}), error: short(crawlerError ?? null) });
  }
  const x402 = header('payment-required')[0];
  if (x402 !== undefined) {
    const doc = decodeJson(x402);
    const accepts = Array.isArray(doc?.accepts) ? (doc.accepts as unknown[]) : [];
    const first = (accepts[0] ?? {}) as Record<string, unknown>;
    out.push({ ...base, protocol: 'x402', amount: short(first.amount ?? first.maxAmountRequired ?? null, 32), currency: short(first.asset ?? null, 128), network: short(first.network ?? null) });
  }
  for (const value of header('www-authenticate')) {
    const params = paymentChallengeParams(value);
    if (params === null) continue;
    const request = params.request ? decodeJson(params.request.replace(/-/g, '+').replace(/_/g, '/')) : null;
    out.push({ ...base, protocol: 'mpp', amount: short(request?.amount ?? null, 32), currency: short(request?.currency ?? null, 128), network: short(params.method ?? null) });
    break;
  }
  return out;
}

/**
 * `site.commerce` from the page's answer and the probes'.
 * @example commerce([{ source: 'GPTBot', status: 402, headers: [['crawler-price', 'USD 0.01']] }]).payPerCrawl // 1
 */
export function commerce(answers: readonly CommerceAnswer[]): Commerce {
  const challenges = answers.flatMap(challengesOf).slice(0, COMMERCE_CHALLENGES_MAX);
  return {
    challenges,
    payPerCrawl: challenges.filter((c) => c.protocol === 'pay-per-crawl' && c.httpStatus === 402 && c.source !== 'page').length,
    x402: challenges.some((c) => c.protocol === 'x402'),
    mpp: challenges.some((c) => c.protocol === 'mpp'),
  };
}
