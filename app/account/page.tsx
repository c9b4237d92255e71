import Link from 'next/link';
import { AccountLookup } from '@/components/AccountLookup';
import { pageMetadata } from '@/lib/site/metadata';

export const generateMetadata = () =>
  pageMetadata({ path: '/account', title: 'Account', description: 'Your credits key: calls left, the reports it paid for, key rotation and signing out.', index: false });

export default function Account() {
  return (
    <>
      <h1>Your credits</h1>
      <p className="lead">
        Paste a credits key to see the calls left on each of its grants, when they expire, and the state of a monthly subscription.
      </p>
      <AccountLookup />
      <p className="muted">
        Need more calls? <Link href="/pricing#top-up">Top up this key</Link>. Agents can read the same numbers from{' '}
        <Link href="/docs#agentCredits">GET /api/agent/credits</Link>.
      </p>
    </>
  );
}
