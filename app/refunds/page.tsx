import Link from 'next/link';
import { PLANS } from '@/lib/credits/plans';
import { pageMetadata } from '@/lib/site/metadata';
import { PolicyMeta } from '@/components/PolicyMeta';

export const generateMetadata = () =>
  pageMetadata({
    path: '/refunds',
    title: 'Refunds',
    description: 'When you can get your money back for prepaid credits, and exactly what a full or partial refund does to the calls left on your key.',
  });

export default function Refunds() {
  const monthly = PLANS.find((p) => p.billing === 'monthly');
  return (
    <>
      <h1>Refunds</h1>
      <p className="lead">
        Unused prepaid calls can be refunded. A refund takes back the calls it pays for, never the results you already received.
      </p>
      <PolicyMeta policy="refunds" />
      <h2 id="ask">How to ask</h2>
      <p>
        <Link href="/contact">Contact support</Link> with the date of the purchase and the last four characters of the key. Refunds go back
        to the card that paid, through our payment processor (Stripe); how long the money takes to appear depends on the card issuer.
      </p>
      <h2 id="calls">What a refund does to your calls</h2>
      <ul>
        <li>A full refund removes every call that is left from that purchase. Calls already spent stay spent; their reports stay yours.</li>
        <li>
          A partial refund removes the same share of that purchase&apos;s calls, rounded up, and never more than are left. For example, half of a
          25-call bundle refunded removes 13 calls.
        </li>
        <li>Other purchases on the same key are not touched: a refund applies only to the purchase it refunds.</li>
        {monthly ? (
          <li>
            For the {monthly.name.toLowerCase()} plan, a refund of one month&apos;s invoice touches only that month&apos;s calls. Cancelling stops the
            next renewal; the calls of the month already paid for stay usable until it ends.
          </li>
        ) : null}
      </ul>
      <h2 id="pay-per-call">Calls paid over HTTP 402</h2>
      <p>
        A call paid per request (card or USDC) is charged only once its check has succeeded, and a failed check is never charged, so there
        is normally nothing to refund. If you think a call was charged wrongly, send us its Idempotency-Key and the payment receipt.
      </p>
    </>
  );
}
