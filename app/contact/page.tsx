import Link from 'next/link';
import { getConfig, supportEmail } from '@/lib/config';
import { pageMetadata } from '@/lib/site/metadata';

export const generateMetadata = () =>
  pageMetadata({
    path: '/contact',
    title: 'Contact support',
    description: 'How to reach the people behind Paid Agent Checks about a purchase, a key, a refund or a report, and what to include so we can help.',
  });

export default function Contact() {
  const email = supportEmail(getConfig());
  return (
    <>
      <h1>Contact support</h1>
      <p className="lead">
        Write to <a href={`mailto:${email}`}>{email}</a>. A person reads every message.
      </p>
      <h2>What to include</h2>
      <ul>
        <li>The date of your purchase and the email address you paid with, for anything about a payment or a refund.</li>
        <li>
          The last four characters of your credits key (for example <code>pac_live_…a1B2</code>), never the whole key. We will never ask
          for it: we keep only a hash of it and do not need it to find your account.
        </li>
        <li>The report address or the Idempotency-Key of a call, for a question about a result.</li>
      </ul>
      <h2>Before you write</h2>
      <ul>
        <li>Lost a key you never saved? It cannot be shown again; write to us with the purchase details and we will sort it out.</li>
        <li>
          A key that may have leaked: <Link href="/account">rotate it on your account page</Link> at once. The old key stops working
          immediately and the new one keeps every call.
        </li>
        <li>
          Refunds: see <Link href="/refunds">what a refund does to your calls</Link>. Stored data: see the <Link href="/privacy">privacy page</Link>.
        </li>
        <li>
          How a check scores a site: the <Link href="/docs/checks#ai-visibility-rubric">visibility rubric</Link> and the{' '}
          <Link href="/docs/checks#readiness-rubric">readiness rubric</Link> list every point.
        </li>
      </ul>
      <h2>Problems with the API or MCP</h2>
      <p>
        Every error the API answers is a problem document with a stable <code>type</code> and a <code>detail</code> that says what went
        wrong. Send us both, with the time of the request, the endpoint you called and its Idempotency-Key if it had one. The <Link href="/docs/api#errors">error table</Link> explains each type.
      </p>
      <h2>Security</h2>
      <p>
        Found a way to reach something a check should not fetch, or to spend calls that are not yours? Write to the same address with
        &quot;security&quot; in the subject. Please give us a chance to fix it before telling others.
      </p>
    </>
  );
}
