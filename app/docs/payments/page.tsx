import Link from 'next/link';
import { getConfig, BASE_USDC_ADDRESS } from '@/lib/config';
import { PLANS } from '@/lib/credits/plans';
import { PRICE_CENTS, PRICE_USD, PRICE_USDC_UNITS, USDC_DECIMALS } from '@/lib/price';
import { RENEWAL_GRACE_MS, HANDLED_EVENT_TYPES } from '@/lib/billing/webhook';
import { docsExamples } from '@/lib/docs/examples';
import { docsPageMetadata } from '@/lib/site/metadata';
import { CodeBlock } from '@/components/CodeBlock';
import { Wrappable } from '@/components/docs/Wrappable';

export const generateMetadata = () => docsPageMetadata('/docs/payments');
// Examples name this deployment's own origin, known only at run time.
export const dynamic = 'force-dynamic';

export default function DocsPayments() {
  const examples = docsExamples(getConfig().APP_URL);
  const monthly = PLANS.find((p) => p.billing === 'monthly');
  return (
    <>
      <h1>Payments</h1>
      <p className="lead">
        Every paid endpoint takes any of four ways to pay, {PRICE_USD} USD per fulfilled request. Without one it answers 402 with the
        challenges of each rail, so a client can pick. A check that fails is not charged.
      </p>

      <h2 id="local-rails">Trying it without money</h2>
      <p>
        From a clone of the repository, <code>npm run rails</code> starts local payment rails: a local chain (id 8453) with test USDC at
        the Base USDC address and a funded test wallet, a real x402 facilitator settling on it, and a stand-in for the card processor.
        It prints the variables to export: the service&apos;s (give them to the service with <code>APP_URL</code>) and the paying
        client&apos;s (<code>MPPX_PRIVATE_KEY</code>, <code>MPPX_RPC_URL</code>, <code>MPPX_STRIPE_SECRET_KEY</code>,{' '}
        <code>MPPX_STRIPE_SPT_URL</code>). <code>npm run dev</code> starts the same rails by itself. Every example below runs against
        them as written.
      </p>
      <CodeBlock label="Local rails">{examples.rails}</CodeBlock>

      <h2 id="paying">Ways to pay</h2>
      <h3 id="quick-start-prepaid">Prepaid credits key</h3>
      <p>
        <Link href="/pricing">Buy a plan</Link>; the key is shown once after payment. Each fulfilled request spends one call, and the answer
        says how many are left (<code>Credits-Remaining</code>).
      </p>
      <CodeBlock label="Prepaid key example">{examples.prepaid}</CodeBlock>

      <h3 id="quick-start-mpp-card">MPP, card</h3>
      <p>
        An unpaid request answers 402 with <code>WWW-Authenticate: Payment</code> challenges. The card challenge (method{' '}
        <code>stripe</code>, amount {PRICE_CENTS} cents, currency usd) is paid with a shared payment token from the card processor; the client
        retries with <code>Authorization: Payment &lt;credential&gt;</code> and gets <code>Payment-Receipt</code>. With the mppx CLI
        (installed with the repository; elsewhere <code>npm i -g mppx</code>), which mints the token with the processor&apos;s secret
        key in <code>MPPX_STRIPE_SECRET_KEY</code> at <code>MPPX_STRIPE_SPT_URL</code>:
      </p>
      <CodeBlock label="MPP card example">{examples.mppCard}</CodeBlock>

      <h3 id="quick-start-mpp-evm">MPP, USDC on Base (evm)</h3>
      <p>
        The evm challenge asks for {String(PRICE_USDC_UNITS)} units ({PRICE_USD} USDC, {USDC_DECIMALS} decimals) of{' '}
        <code className="address">{BASE_USDC_ADDRESS}</code> on chain 8453. mppx signs the transfer authorization and retries with{' '}
        <code>Authorization: Payment</code>; the wallet&apos;s key is read from <code>MPPX_PRIVATE_KEY</code> (and the chain&apos;s RPC from{' '}
        <code>MPPX_RPC_URL</code>).
      </p>
      <CodeBlock label="MPP evm example">{examples.mppEvm}</CodeBlock>

      <h3 id="quick-start-x402">x402 v2</h3>
      <p>
        The same 402 carries <code>PAYMENT-REQUIRED</code> (base64 JSON, scheme exact, network eip155:8453, <code>maxTimeoutSeconds</code> 300).
        Retry with <code>PAYMENT-SIGNATURE</code> (<code>X-PAYMENT</code> is accepted too); the answer carries{' '}
        <code>PAYMENT-RESPONSE</code>. With the mppx CLI:
      </p>
      <CodeBlock label="x402 with the mppx CLI">{examples.x402Cli}</CodeBlock>
      <p>
        Or from code, with <code>@x402/fetch</code>, <code>@x402/evm</code> and <code>viem</code> installed: it prints the status, whether
        the payment settled, and its transaction.
      </p>
      <CodeBlock label="x402 example">{examples.x402}</CodeBlock>

      <h2 id="retries">Retries and charges</h2>
      <p>
        Send an <code>Idempotency-Key</code> (8-128 characters) with every paid request. The same key and body replay the stored answer free,
        with <code>Idempotent-Replayed: true</code>; the same key with another body is refused 409. A payment is settled only once the check
        has its answer, and a prepaid call only spent then: a check that fails charges nothing.
      </p>
      <p>
        A call paid from a wallet (MPP evm or x402) keeps its report for the paying address, which reads it back by signing in with the
        wallet; a card-paid call keeps no report.
      </p>

      <h2 id="billing">Purchases, renewals and refunds</h2>
      <ul>
        <li>Buying a plan creates a Stripe Checkout Session; the key (new, or the one you top up) is credited when Stripe confirms the payment.</li>
        <li>A top-up names its key only in our own form; the payment processor never sees it.</li>
        {monthly ? (
          <li>
            The monthly plan resets to {monthly.calls} calls when each month is paid (reset, not added). Its calls stay usable for{' '}
            {RENEWAL_GRACE_MS / 3_600_000} hours past the period end while the renewal is collected.
          </li>
        ) : null}
        <li>After cancellation the calls of the month already paid for stay usable until it ends; nothing renews.</li>
        <li>A refund removes the calls that remain of that purchase; a partial refund removes the same share of its calls.</li>
        <li>
          Webhook events used:{' '}
          {HANDLED_EVENT_TYPES.map((t, i) => (
            <span key={t}>
              {i ? ', ' : ''}
              <code><Wrappable text={t} /></code>
            </span>
          ))}
          . Each event is processed once, in any order.
        </li>
      </ul>
    </>
  );
}
