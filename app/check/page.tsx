import Link from 'next/link';
import { cookies } from 'next/headers';
import { CheckApp } from '@/components/check/CheckApp';
import { signInRefusal } from '@/components/check/session';
import { getConfig } from '@/lib/config';
import { checks } from '@/lib/checks/registry';
import { PRICE_USD } from '@/lib/price';
import { sessionFromCookies } from '@/lib/session';
import { pageMetadata } from '@/lib/site/metadata';

export const generateMetadata = () =>
  pageMetadata({
    path: '/check',
    title: 'Run a check',
    description: `Run ${checks().map((c) => `the ${c.service}`).join(' or ')} in your browser with a credits key: ${PRICE_USD} USD a call, only when it succeeds.`,
  });

export default async function CheckPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const session = await sessionFromCookies(await cookies());
  // A sign-in form posted without its script comes back here with why it was refused.
  const signInError = session ? null : signInRefusal((await searchParams)['sign-in']);
  const days = getConfig().REPORT_RETENTION_DAYS;
  return (
    <>
      <h1>Run a check</h1>
      <p className="lead">
        Sign in with your credits key and run either check here: the same checks, the same price and the same rules as the API.
      </p>
      <CheckApp
        initial={session ? { signedIn: true, callsLeft: session.callsLeft, keyPrefix: session.keyPrefix } : null}
        examples={Object.fromEntries(checks().map((c) => [c.id, c.example]))}
        signInError={signInError}
      />
      <h2>How it works</h2>
      <ul>
        <li>
          <strong>One call per fulfilled check.</strong> A check that succeeds spends one call of your key ({PRICE_USD} USD of a prepaid
          plan). A page that cannot be fetched, an address that is refused and a form that is not complete spend nothing, and the page says
          so.
        </li>
        <li>
          <strong>Your key stays yours.</strong> It is sent once, when you sign in. After that the browser holds only a session cookie with
          a random id that the page&apos;s scripts cannot read; signing out ends the session on our side at once.
        </li>
        <li>
          <strong>Every report is kept for {days} days.</strong> Each result gets a permanent link that only you, signed in with the same
          key, can open. Your <Link href="/account">account page</Link> lists them, newest first.
        </li>
      </ul>
      <p className="muted">
        No key yet? <Link href="/pricing">See the plans</Link>. Agents and scripts use the <Link href="/docs#quick-start">API</Link> or
        MCP instead, and can pay per call.
      </p>
    </>
  );
}
