export { createCheckout, requirePlan, type BillingDeps, type CheckoutResult } from './checkout';
export { handleWebhookEvent, verifyWebhook, reconcileRefund, reconcileSubscription, HANDLED_EVENT_TYPES, RENEWAL_GRACE_MS, WEBHOOK_LEASE_MS, type WebhookEvent, type WebhookOutcome } from './webhook';
export { checkoutSessionStatus, accountSummary, billingPortalUrl, type SessionStatus, type AccountSummary, type SubscriptionState } from './account';
export { billingStripe } from './stripe';
