// Payment configuration: the fixed environment names, read once. A rail whose settings are incomplete is
// simply not offered (see liveRails); nothing here throws for a missing variable.

/** Base mainnet USDC (chain 8453): the default USDC_ADDRESS. */
export const BASE_USDC_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const;
export const BASE_CHAIN_ID = 8453;

export interface PaymentConfig {
  /** APP_URL: public origin of the service. Realm and x402 resource.url derive from it. */
  appUrl?: string;
  /** MPP_SECRET_KEY: HMAC key binding challenges (>= 32 bytes). Needed by every rail. */
  mppSecretKey?: string;
  /** PAY_TO_ADDRESS: recipient of USDC payments. */
  payToAddress?: string;
  /** USDC_ADDRESS: the USDC contract on chain 8453 (default: Base USDC). */
  usdcAddress?: string;
  /** X402_FACILITATOR_URL: x402 facilitator verifying and settling USDC authorizations. */
  x402FacilitatorUrl?: string;
  /** STRIPE_SECRET_KEY / STRIPE_NETWORK_ID: the card rail (shared payment tokens). */
  stripeSecretKey?: string;
  stripeNetworkId?: string;
  /** STRIPE_API_URL: optional origin override for the Stripe SDK (local rails, tests). */
  stripeApiUrl?: string;
}

/** The payment settings under their environment names (lib/config.ts's Config has them all). */
export type PaymentSettings = Partial<
  Record<'APP_URL' | 'MPP_SECRET_KEY' | 'PAY_TO_ADDRESS' | 'USDC_ADDRESS' | 'X402_FACILITATOR_URL' | 'STRIPE_SECRET_KEY' | 'STRIPE_NETWORK_ID' | 'STRIPE_API_URL', string>
>;

/**
 * The payment configuration from settings named as in the environment.
 * @example createPaymentRails(paymentConfigOf(config), { claims })
 */
export function paymentConfigOf(settings: PaymentSettings): PaymentConfig {
  return {
    appUrl: settings.APP_URL,
    mppSecretKey: settings.MPP_SECRET_KEY,
    payToAddress: settings.PAY_TO_ADDRESS,
    usdcAddress: settings.USDC_ADDRESS,
    x402FacilitatorUrl: settings.X402_FACILITATOR_URL,
    stripeSecretKey: settings.STRIPE_SECRET_KEY,
    stripeNetworkId: settings.STRIPE_NETWORK_ID,
    stripeApiUrl: settings.STRIPE_API_URL,
  };
}

export type RailName = 'stripe' | 'evm' | 'x402';

/**
 * Which rails the configuration can offer: `stripe` (MPP card), `evm` (MPP USDC) and `x402` (USDC over
 * x402 v2; same facilitator as `evm`, so both or neither).
 */
export function liveRails(config: PaymentConfig): RailName[] {
  if (!config.appUrl || !config.mppSecretKey) return [];
  const rails: RailName[] = [];
  if (config.stripeSecretKey && config.stripeNetworkId) rails.push('stripe');
  if (config.payToAddress && config.x402FacilitatorUrl) rails.push('evm', 'x402');
  return rails;
}
