// Machine payments: the rails (mppx: MPP card + MPP evm + x402 v2), the 402 challenge, and the
// validate-then-settle split the paid-call gate uses.
export { BASE_CHAIN_ID, BASE_USDC_ADDRESS, liveRails, paymentConfigFromEnv } from './config';
export type { PaymentConfig, RailName } from './config';
export { memoryCredentialClaims } from './claims';
export type { CredentialClaims } from './claims';
export { createPaymentRails, PRICE, USDC_EIP712 } from './rails';
export type { CreatePaymentRailsOptions, PaymentRails } from './rails';
export { challenge, DEFAULT_CHALLENGE_DETAIL } from './challenge';
export type { PaymentChallenge } from './challenge';
export { hasPaymentCredential, verifyCredential } from './verify';
export type { CredentialVerdict, FailureReason, PaidRail, PaymentFailure, Settlement, ValidCredential } from './verify';
