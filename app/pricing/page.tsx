import { cookies } from 'next/headers';
import Link from 'next/link';
import { PlanCards } from '@/components/PlanCards';
import { TopUpForm } from '@/components/TopUpForm';
import { PRICE_USD } from '@/lib/price';
import { pageMetadata } from '@/lib/site/metadata';
import { sessionFromCookies } from '@/lib/session';

export const generateMetadata = () =>
  pageMetadata({
    path: '/pricing',
    title: 'Pricing',
    description: `Every fulfilled check costs ${PRICE_USD} USD: pay per call over HTTP 402, or buy prepaid credits by card. Plans, what a call is, and refunds.`,
  });

export default async function Pricing() {
  const session = await sessionFromCookies(await cookies());
  return (
    <>
      <h1>Pricing</h1>
      <p className="lead">
        Every fulfilled check costs {PRICE_USD} USD, paid per request over HTTP 402, or from a prepaid credits key. Prepaid plans are
        for people and teams who would rather buy calls in advance with a card.
      </p>
      <PlanCards />
      <p className="muted">
        Prices in US dollars. Payment by card through Stripe Checkout. A call is spent only by a fulfilled request; a visibility check
        that cannot reach the site is not charged. See <Link href="/docs/api#limits">limits</Link>.
      </p>
      <section aria-labelledby="top-up">
        <h2 id="top-up">{session ? 'Top up your key' : 'Top up an existing key'}</h2>
        <TopUpForm signedInAs={session?.keyPrefix ?? null} />
      </section>
      <section aria-labelledby="faq">
        <h2 id="faq">Questions</h2>
        <h3>What happens after I pay?</h3>
        <p>You come back to this site and your new key is shown once. Copy it then: we keep only a hash of it.</p>
        <h3>How does the monthly plan renew?</h3>
        <p>
          Each month the allowance is reset to 50 calls; unused calls do not roll over. Cancel any time from the{' '}
          <Link href="/account">account page</Link>: the calls of the month you paid for stay usable until it ends.
        </p>
        <h3>What about refunds?</h3>
        <p>A refund removes the calls that remain of that purchase (part of them for a partial refund).</p>
      </section>
    </>
  );
}
