// createPaymentRails(): one mppx instance offering every configured rail:
//   Mppx.create({ secretKey, realm, methods: [stripe.charge(...), evm.charge({ ..., x402: { facilitator } })] })
//   mppx.charge({ amount: '1' })  -> card 100 (usd cents), evm 1000000 (USDC units), plus PAYMENT-REQUIRED.
// Each method's terminal step is wrapped by deferSettlement() (scope.ts) so the paid-call pipeline can
// validate, run the operation, and only then settle. PaymentRails is the one face the pipeline sees:
// challenge(), verify() and the settlements probe, over mppx's handlers.
import { Mppx, evm, stripe } from 'mppx/server';
import { getAddress, isAddress } from 'viem';
import { memoryCredentialClaims, type CredentialClaims } from './claims';
import { BASE_CHAIN_ID, BASE_USDC_ADDRESS, liveRails, type PaymentConfig, type RailName } from './config';
import { httpFacilitator, type FacilitatorClient } from './facilitator';
import type { DirectoryListings } from './listing';
import { deferSettlement, requestScope } from './scope';
import { challenge, type ChargeHandler, type PaymentChallenge } from './challenge';
import { processorProbe, type SettlementProbe } from './settlements';
import { verifyPayment, type CredentialVerdict, type CredentialVerifier, type PaymentCredential } from './verify';
import type { Problem } from '@/lib/problems';
import { classifyingStripeClient, createStripeClient, sharedPaymentTokenOwner } from './stripe';
import type Stripe from 'stripe';
import { PRICE_MPP_AMOUNT } from '@/lib/price';

/** EIP-712 domain of USDC (FiatToken v2), signed by EIP-3009 authorizations. */
export const USDC_EIP712 = { name: 'USD Coin', version: '2' } as const;

type MppxServer = ReturnType<typeof createMppx>;

/**
 * The machine-payment rails (MPP card, MPP evm, x402), the only payment type the paid-call pipeline uses.
 * What issuing a challenge and verifying a credential need of them is declared where that is done
 * (ChallengeIssuer, CredentialVerifier), so those modules need nothing from this one.
 */
export interface PaymentRails extends CredentialVerifier {
  /** Rails on offer: 'stripe' (MPP card), 'evm' (MPP USDC), 'x402' (USDC over x402 v2). */
  live: RailName[];
  /** The 402 terms for `resourcePath` of APP_URL (a fresh challenge per call), with `body` as its problem. */
  challenge(resourcePath: string, body: Problem): Promise<PaymentChallenge>;
  /** Validates `credential` for `resourcePath` without charging it (see verifyPayment in verify.ts). */
  verify(credential: PaymentCredential, resourcePath: string): Promise<CredentialVerdict>;
  /** Asks the processors what became of a settlement that ended without an answer (settlements.ts). */
  settlements: SettlementProbe;
  realm: string;
  /** @internal */ mppx: MppxServer;
  /** The card rail's Stripe client (null without the card rail): payer lookups and reconciliation. */
  stripe: Stripe | null;
}

export interface CreatePaymentRailsOptions {
  /** Single-use credential markers; the service passes its store. Default: in-process memory. */
  claims?: CredentialClaims;
  /** Where the facilitator's directory listing status goes (listing.ts); the service passes its store's. */
  directory?: DirectoryListings;
  /** Overrides for tests. */
  facilitator?: FacilitatorClient;
  fetch?: typeof fetch;
  /** Card processor deadline per attempt (see createStripeClient); fault tests shorten it. */
  stripeTimeoutMs?: number;
  /** The chain the reconciler reads USDC authorizations from (BASE_RPC_URL); null: evm settlements stay pending. */
  rpcUrl?: string | null;
}

/**
 * Builds the rails, or returns null when no rail is configured (the pipeline then answers 503).
 * @example
 *   const rails = createPaymentRails({ appUrl, mppSecretKey, payToAddress, x402FacilitatorUrl }, { claims, rpcUrl })
 *   const offer = await rails?.challenge(check.path, problem('payment-required', 'Pay 1.00 USD.'))
 */
export function createPaymentRails(config: PaymentConfig, options: CreatePaymentRailsOptions = {}): PaymentRails | null {
  const live = liveRails(config);
  if (live.length === 0) return null;
  const appUrl = new URL(config.appUrl!);
  if (appUrl.protocol !== 'https:' && appUrl.protocol !== 'http:') throw new Error('APP_URL must be an http(s) URL');
  if (new TextEncoder().encode(config.mppSecretKey!).byteLength < 32)
    throw new Error('MPP_SECRET_KEY must be at least 32 bytes (generate one with `openssl rand -base64 32`)');

  const realm = appUrl.host;
  const methods = [];
  let stripeClient: Stripe | null = null;
  if (live.includes('stripe')) {
    stripeClient = createStripeClient({ secretKey: config.stripeSecretKey!, apiUrl: config.stripeApiUrl, timeoutMs: options.stripeTimeoutMs });
    const client = classifyingStripeClient(stripeClient);
    methods.push(
      deferSettlement(
        stripe.charge({
          client,
          networkId: config.stripeNetworkId!,
          paymentMethodTypes: ['card', 'link'],
          currency: 'usd',
          decimals: 2,
        }),
      ),
    );
  }
  if (live.includes('evm')) {
    const usdc = config.usdcAddress ?? BASE_USDC_ADDRESS;
    if (!isAddress(usdc)) throw new Error('USDC_ADDRESS is not an address');
    if (!isAddress(config.payToAddress!)) throw new Error('PAY_TO_ADDRESS is not an address');
    methods.push(
      deferSettlement(
        evm.charge({
          currency: getAddress(usdc),
          recipient: getAddress(config.payToAddress!),
          chainId: BASE_CHAIN_ID,
          decimals: 6,
          authorization: USDC_EIP712,
          x402: {
            facilitator: options.facilitator ?? httpFacilitator(config.x402FacilitatorUrl!, { fetch: options.fetch, directory: options.directory }),
            maxTimeoutSeconds: 300,
          },
        }),
      ),
    );
  }

  const mppx = createMppx(config.mppSecretKey!, realm, methods);
  // mppx reports each failed credential through this event, inside the request's async context.
  mppx.onPaymentFailed((context) => {
    requestScope.getStore()?.errors.push(context.error as Error);
  });
  const charge = (mppx as unknown as { charge: unknown }).charge as (options: { amount: string; meta?: Record<string, string>; expires?: string }) => ChargeHandler;
  // One handler per operation: its `meta` is bound into every challenge it issues, and a credential is verified
  // by the handler of the operation it is presented at. Operations are the registered routes, so these stay few.
  const verifyHandlers = new Map<string, ChargeHandler>();
  const challengeHandlers = new Map<string, ChargeHandler>();
  const handlerOf = (handlers: Map<string, ChargeHandler>, operation: string, make: () => ChargeHandler) => {
    let handler = handlers.get(operation);
    if (!handler) handlers.set(operation, (handler = make()));
    return handler;
  };

  const rails: PaymentRails = {
    live,
    appUrl: appUrl.origin,
    realm,
    claims: options.claims ?? memoryCredentialClaims(),
    mppx,
    verifyHandler: (operation) => handlerOf(verifyHandlers, operation, () => charge({ amount: PRICE_MPP_AMOUNT, meta: { operation } })),
    // mppx reads `options.expires` on every call of a handler (`'expires' in options ? options.expires :
    // Expires.minutes(5)`), so a getter gives each challenge its own expiry without building a new handler
    // per request (building one costs ~0.5 ms of CPU here, a third of the 402 path). The uniqueness test in
    // tests/payments/challenge.test.ts guards this against mppx changing how it reads the option.
    challengeHandler: (operation) =>
      handlerOf(challengeHandlers, operation, () =>
        charge({
          amount: PRICE_MPP_AMOUNT,
          meta: { operation },
          get expires() {
            return uniqueExpiry();
          },
        }),
      ),
    secretKey: config.mppSecretKey!,
    nextExpiry: uniqueExpiry,
    resourceUrl: (pathname: string) => new URL(pathname, appUrl.origin).href,
    stripe: stripeClient,
    cardPayer: async (spt: string) => (stripeClient ? sharedPaymentTokenOwner(stripeClient, spt) : null),
    challenge: (resourcePath, body) => challenge(rails, rails.resourceUrl(resourcePath), body),
    verify: (credential, resourcePath) => verifyPayment(rails, credential, rails.resourceUrl(resourcePath)),
    settlements: processorProbe({ rpcUrl: options.rpcUrl ?? null, stripe: stripeClient }),
  };
  return rails;
}

function createMppx(secretKey: string, realm: string, methods: unknown[]) {
  return Mppx.create({ secretKey, realm, methods: methods as Parameters<typeof Mppx.create>[0]['methods'] });
}

// Every challenge must be unique per request: the evm authorization nonce is derived from the challenge id,
// so two identical challenges paid by one payer would collide. The id is an HMAC over the challenge's fields
// and `expires` is the only per-request one; mppx computes it with millisecond precision, so two requests in
// the same millisecond would get the same challenge. We hand mppx an expiry that is strictly increasing
// within this process (5 minutes ahead, at least 1 ms after the previous one). Two instances of the
// service can still coincide within one millisecond; the single-use claim (scope.ts) then makes the second
// payment of that nonce fail cleanly with a fresh 402 rather than double-charge.
let lastExpiry = 0;
function uniqueExpiry(): string {
  const next = Math.max(Date.now() + 5 * 60 * 1000, lastExpiry + 1);
  lastExpiry = next;
  return new Date(next).toISOString();
}
