// A local fake of the few Stripe API endpoints the payment rails use, good enough for the official `stripe`
// SDK (configured with { host, port, protocol: 'http' }) and for mppx's SPT minting:
//
//   POST /v1/test_helpers/shared_payment/granted_tokens   mint an SPT (what the mppx CLI's stripe plugin calls
//                                                         with a test key; our tests' createToken does the same)
//   POST /v1/shared_payment/issued_tokens                 the live-key variant of the same (same behaviour here)
//   GET  /v1/shared_payment/granted_tokens/:id            retrieve an SPT
//   POST /v1/payment_intents                              create (+ confirm) a PaymentIntent; mppx's server
//                                                         sends shared_payment_granted_token and confirm=true
//   GET  /v1/payment_intents/:id, GET /v1/payment_intents retrieve / list (tests count PaymentIntents)
//   GET  /v1/payment_intents/search                       Stripe's search, for `metadata['key']:'value'` queries
//                                                         (the settlement reconciler finds mppx's PaymentIntent
//                                                         by its `mpp_challenge_id`)
//
// Behaviour mirrors Stripe where it matters to us: API-key auth (Bearer or Basic), form-encoded bodies,
// Idempotency-Key replays (`Idempotent-Replayed: true`; other params under the same key -> 400), an SPT is
// single-use and bounded by its usage limits and expiry, and test payment methods decide the outcome
// (pm_card_visa succeeds, pm_card_chargeDeclined is declined with 402 card_error,
// pm_card_authenticationRequired needs action). `setFault('error500' | 'down' | ...)` makes it fail on demand;
// `late` confirms PaymentIntents only after the client's deadline. A token minted with `customer` names it,
// and every token shows its card's fingerprint (`payment_method_details.card.fingerprint`), as Stripe shows
// the seller a granted token.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './facilitator';
import { nowSeconds, parseForm, prefixed, type Params } from './form';
import { actOutFault, lateness, type ProcessorFault } from './faults';
import { createHash } from 'node:crypto';
import { createCheckoutFake, type CheckoutFake, type CheckoutFakeOptions } from './stripe-checkout-fake';

export type StripeFault = ProcessorFault;

export interface FakeSharedPaymentToken {
  id: string;
  object: 'shared_payment.granted_token';
  created: number;
  livemode: false;
  payment_method: string;
  customer: string | null;
  payment_method_details: { type: 'card'; card: { fingerprint: string } };
  usage_limits: { currency: string; max_amount: number; expires_at: number };
  seller_details: { network_id?: string; network_business_profile?: string };
  metadata: Record<string, string>;
  deactivated_at: number | null;
  deactivated_reason: string | null;
}

export interface FakePaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: 'succeeded' | 'requires_action' | 'requires_payment_method' | 'requires_confirmation';
  created: number;
  livemode: false;
  confirmation_method: 'automatic';
  capture_method: 'automatic';
  payment_method: string | null;
  payment_method_types: string[];
  shared_payment_granted_token: string | null;
  metadata: Record<string, string>;
  client_secret: string;
  last_payment_error: null | { type: string; code: string; message: string };
  /** What the customer must do before the payment can complete (3-D Secure), as Stripe reports it. */
  next_action: null | { type: 'use_stripe_sdk'; use_stripe_sdk: { type: 'three_d_secure_redirect'; stripe_js: string } };
}

export interface StripeFakeHandle {
  /** Origin for STRIPE_API_URL, e.g. http://127.0.0.1:43123 */
  apiUrl: string;
  host: string;
  port: number;
  secretKey: string;
  networkId: string;
  setFault(fault: StripeFault): void;
  paymentIntents(): FakePaymentIntent[];
  sharedPaymentTokens(): FakeSharedPaymentToken[];
  /** Every request received, in order (method and path): lets tests assert which calls were made. */
  requests(): { method: string; path: string }[];
  /** Checkout Sessions, hosted-page stand-ins, renewals, refunds, billing portal (stripe-checkout-fake.ts). */
  checkout: CheckoutFake;
  stop(): Promise<void>;
}

class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; code?: string; message: string; param?: string; [k: string]: unknown },
  ) {
    super(body.message);
  }
}

export async function startStripeFake(
  options: { secretKey?: string; networkId?: string; port?: number; checkout?: Omit<CheckoutFakeOptions, 'secretKey'> } = {},
): Promise<StripeFakeHandle> {
  const secretKey = options.secretKey ?? `sk_test_local_${randomBytes(12).toString('hex')}`;
  const checkout = createCheckoutFake({ ...options.checkout, secretKey });
  const networkId = options.networkId ?? 'internal';
  const tokens = new Map<string, FakeSharedPaymentToken>();
  const intents = new Map<string, FakePaymentIntent>();
  const idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const log: { method: string; path: string }[] = [];
  let fault: StripeFault = null;

  const server: Server = createServer((req, res) => {
    if (actOutFault(fault, req, res)) return;
    void handle(req, res).catch((error: unknown) => {
      if (error instanceof StripeError) return send(res, error.status, { error: error.body });
      send(res, 500, { error: { type: 'api_error', message: 'An unknown error occurred in the local fake.' } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stripe.local');
    const method = req.method ?? 'GET';
    log.push({ method, path: url.pathname });
    const late = lateness(method === 'POST' && url.pathname === '/v1/payment_intents' ? fault : null);
    const raw = await readBody(req);
    await late;
    if (fault === 'error500')
      throw new StripeError(500, { type: 'api_error', message: 'Stripe fault injected by the local rails.' });
    if (await checkout.handle(req, res, raw)) return;
    authenticate(req.headers.authorization);
    const params = method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(raw);

    const key = req.headers['idempotency-key'];
    const idempotencyKey = method === 'POST' && typeof key === 'string' ? key : undefined;
    const fingerprint = `${method} ${url.pathname} ${raw}`;
    if (idempotencyKey) {
      const stored = idempotency.get(idempotencyKey);
      if (stored) {
        if (stored.fingerprint !== fingerprint)
          throw new StripeError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with.`,
          });
        return send(res, stored.status, stored.body, { 'Idempotent-Replayed': 'true', 'Idempotency-Key': idempotencyKey });
      }
    }

    const { status, body } = route(method, url.pathname, params);
    if (idempotencyKey && status < 500) idempotency.set(idempotencyKey, { fingerprint, status, body });
    send(res, status, body, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {});
  }

  function authenticate(header: string | undefined): void {
    let presented: string | undefined;
    if (header?.startsWith('Bearer ')) presented = header.slice(7);
    else if (header?.startsWith('Basic ')) presented = Buffer.from(header.slice(6), 'base64').toString().split(':')[0];
    if (presented !== secretKey)
      throw new StripeError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided.' });
  }

  function route(method: string, path: string, params: Params): { status: number; body: unknown } {
    if (
      method === 'POST' &&
      (path === '/v1/test_helpers/shared_payment/granted_tokens' || path === '/v1/shared_payment/issued_tokens')
    )
      return { status: 200, body: createToken(params) };
    let m = /^\/v1\/shared_payment\/granted_tokens\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) return { status: 200, body: findToken(m[1]!) };
    if (method === 'POST' && path === '/v1/payment_intents') return createPaymentIntent(params);
    if (method === 'GET' && path === '/v1/payment_intents/search') return { status: 200, body: searchPaymentIntents(path, params) };
    if (method === 'GET' && path === '/v1/payment_intents')
      return {
        status: 200,
        body: { object: 'list', url: path, has_more: false, data: [...intents.values()].reverse() },
      };
    m = /^\/v1\/payment_intents\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const pi = intents.get(m[1]!);
      if (!pi) throw missing('payment_intent', m[1]!);
      return { status: 200, body: pi };
    }
    throw new StripeError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  function createToken(params: Params): FakeSharedPaymentToken {
    const paymentMethod = str(params, 'payment_method');
    if (!paymentMethod) throw paramMissing('payment_method');
    const currency = str(params, 'usage_limits[currency]');
    const maxAmount = Number(str(params, 'usage_limits[max_amount]'));
    const expiresAt = Number(str(params, 'usage_limits[expires_at]'));
    if (!currency) throw paramMissing('usage_limits[currency]');
    if (!Number.isSafeInteger(maxAmount) || maxAmount <= 0) throw paramInvalid('usage_limits[max_amount]');
    if (!Number.isSafeInteger(expiresAt)) throw paramInvalid('usage_limits[expires_at]');
    const token: FakeSharedPaymentToken = {
      id: `spt_${randomBytes(12).toString('hex')}`,
      object: 'shared_payment.granted_token',
      created: nowSeconds(),
      livemode: false,
      payment_method: paymentMethod,
      customer: str(params, 'customer') ?? null,
      // Stripe's fingerprint is per card number; the test payment method stands for one card.
      payment_method_details: { type: 'card', card: { fingerprint: createHash('sha256').update(paymentMethod).digest('base64url').slice(0, 16) } },
      usage_limits: { currency: currency.toLowerCase(), max_amount: maxAmount, expires_at: expiresAt },
      seller_details: {
        ...(str(params, 'seller_details[network_id]') ? { network_id: str(params, 'seller_details[network_id]') } : {}),
        ...(str(params, 'seller_details[network_business_profile]')
          ? { network_business_profile: str(params, 'seller_details[network_business_profile]') }
          : {}),
      },
      metadata: prefixed(params, 'metadata'),
      deactivated_at: null,
      deactivated_reason: null,
    };
    tokens.set(token.id, token);
    return token;
  }

  // Stripe's search language, reduced to what callers here send: metadata['key']:'value' joined by AND.
  function searchPaymentIntents(path: string, params: Params): unknown {
    const query = str(params, 'query');
    if (!query) throw paramMissing('query');
    const clauses = query.split(' AND ').map((clause) => /^metadata\['([^']+)'\]:'([^']*)'$/.exec(clause.trim()));
    if (clauses.some((c) => c === null))
      throw new StripeError(400, { type: 'invalid_request_error', code: 'parameter_invalid_string', param: 'query', message: `Unsupported search query: ${query}` });
    const data = [...intents.values()].reverse().filter((pi) => clauses.every((c) => pi.metadata[c![1]!] === c![2]));
    return { object: 'search_result', url: path, has_more: false, next_page: null, data };
  }

  function findToken(id: string): FakeSharedPaymentToken {
    const token = tokens.get(id);
    if (!token) throw missing('shared_payment.granted_token', id);
    return token;
  }

  function createPaymentIntent(params: Params): { status: number; body: unknown } {
    const amount = Number(str(params, 'amount'));
    const currency = str(params, 'currency')?.toLowerCase();
    if (!Number.isSafeInteger(amount) || amount <= 0) throw paramInvalid('amount');
    if (!currency) throw paramMissing('currency');
    const sptId = str(params, 'shared_payment_granted_token');
    const confirm = str(params, 'confirm') === 'true';

    let paymentMethod: string | null = str(params, 'payment_method') ?? null;
    if (sptId) {
      const token = findToken(sptId);
      if (token.deactivated_at !== null)
        throw new StripeError(400, {
          type: 'invalid_request_error',
          code: 'shared_payment_granted_token_used',
          param: 'shared_payment_granted_token',
          message: `The shared payment granted token ${sptId} has already been used or deactivated.`,
        });
      if (token.usage_limits.expires_at < nowSeconds())
        throw new StripeError(400, {
          type: 'invalid_request_error',
          code: 'shared_payment_granted_token_expired',
          param: 'shared_payment_granted_token',
          message: `The shared payment granted token ${sptId} has expired.`,
        });
      if (token.usage_limits.currency !== currency || amount > token.usage_limits.max_amount)
        throw new StripeError(400, {
          type: 'invalid_request_error',
          code: 'shared_payment_granted_token_usage_limits_exceeded',
          param: 'amount',
          message: `The amount exceeds the usage limits of shared payment granted token ${sptId}.`,
        });
      const seller = token.seller_details.network_id ?? token.seller_details.network_business_profile;
      if (seller !== undefined && seller !== networkId)
        throw new StripeError(400, {
          type: 'invalid_request_error',
          param: 'shared_payment_granted_token',
          message: `The shared payment granted token ${sptId} was not granted to this account.`,
        });
      paymentMethod = token.payment_method;
    }

    const pi: FakePaymentIntent = {
      id: `pi_${randomBytes(12).toString('hex')}`,
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency,
      status: 'requires_confirmation',
      created: nowSeconds(),
      livemode: false,
      confirmation_method: 'automatic',
      capture_method: 'automatic',
      payment_method: paymentMethod,
      payment_method_types: ['card', 'link'],
      shared_payment_granted_token: sptId ?? null,
      metadata: prefixed(params, 'metadata'),
      client_secret: '',
      last_payment_error: null,
      next_action: null,
    };
    pi.client_secret = `${pi.id}_secret_${randomBytes(8).toString('hex')}`;
    if (!paymentMethod) pi.status = 'requires_payment_method';

    if (confirm && paymentMethod) {
      if (sptId) {
        // The SPT is spent by the confirmation attempt, whatever its outcome.
        const token = tokens.get(sptId)!;
        token.deactivated_at = nowSeconds();
        token.deactivated_reason = 'consumed';
      }
      if (paymentMethod === 'pm_card_chargeDeclined' || paymentMethod === 'pm_card_visa_chargeDeclined') {
        pi.status = 'requires_payment_method';
        pi.last_payment_error = { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' };
        intents.set(pi.id, pi);
        return {
          status: 402,
          body: {
            error: {
              type: 'card_error',
              code: 'card_declined',
              decline_code: 'generic_decline',
              message: 'Your card was declined.',
              payment_intent: pi,
            },
          },
        };
      }
      if (paymentMethod === 'pm_card_authenticationRequired' || paymentMethod === 'pm_card_threeDSecure2Required') {
        // Stripe answers 200: the PaymentIntent exists, uncharged, waiting for the customer's 3-D Secure step.
        pi.status = 'requires_action';
        pi.next_action = {
          type: 'use_stripe_sdk',
          use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: `https://hooks.stripe.com/3d_secure_2/hosted?payment_intent=${pi.id}` },
        };
      } else {
        pi.status = 'succeeded';
        pi.amount_received = amount;
      }
    }
    intents.set(pi.id, pi);
    return { status: 200, body: pi };
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    secretKey,
    networkId,
    setFault(next) {
      fault = next;
    },
    paymentIntents: () => [...intents.values()],
    sharedPaymentTokens: () => [...tokens.values()],
    requests: () => [...log],
    checkout,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function str(params: Params, key: string): string | undefined {
  const value = params.get(key);
  return value === undefined || value === '' ? undefined : value;
}

function missing(kind: string, id: string): StripeError {
  return new StripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${id}'`,
  });
}

function paramMissing(param: string): StripeError {
  return new StripeError(400, {
    type: 'invalid_request_error',
    code: 'parameter_missing',
    param,
    message: `Missing required param: ${param}.`,
  });
}

function paramInvalid(param: string): StripeError {
  return new StripeError(400, {
    type: 'invalid_request_error',
    code: 'parameter_invalid_integer',
    param,
    message: `Invalid integer: ${param}.`,
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Request-Id': `req_${randomBytes(8).toString('hex')}`,
    ...headers,
  });
  res.end(text);
}
