export { createCheckout } from './checkout';
export { handleWebhookEvent, verifyWebhook, RENEWAL_GRACE_MS, WEBHOOK_LEASE_MS, type WebhookOutcome } from './webhook';
export { checkoutSessionStatus, accountSummary, billingPortalUrl } from './account';
export { billingStripe } from './stripe';
