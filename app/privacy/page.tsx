import Link from 'next/link';
import { REPLAY_TTL_MS } from '@/lib/payments/replay-record';
import { REVEAL_TTL_MS } from '@/lib/billing/records';
import { pageMetadata } from '@/lib/site/metadata';
import { PolicyMeta } from '@/components/PolicyMeta';
import { getConfig } from '@/lib/config';
import { SESSION_TTL_MS } from '@/lib/session';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

export const generateMetadata = () =>
  pageMetadata({
    path: '/privacy',
    title: 'Privacy',
    description: 'What Paid Agent Checks keeps about you and for how long: key hashes, usage, stored reports for a limited time. Card data stays with Stripe.',
  });

export default function Privacy() {
  const hours = (ms: number) => ms / 3_600_000;
  return (
    <>
      <h1>Privacy</h1>
      <p className="lead">We keep as little as the service needs to work, and nothing that lets us spend your calls.</p>
      <PolicyMeta policy="privacy" />
      <h2 id="keep">What we keep</h2>
      <TableWrap label="What we keep">
        <table>
          <caption className="visually-hidden">What we keep and for how long</caption>
          <ColumnHeads names={['What', 'Why', 'How long']} />
          <tbody>
            <tr>
              <td>A keyed hash of each credits key, never the key itself</td>
              <td>To recognise the key when you use it</td>
              <td>While the key has calls or a plan</td>
            </tr>
            <tr>
              <td>Usage: each call spent, with its time</td>
              <td>To count calls left and answer questions about a charge</td>
              <td>While the key has calls or a plan</td>
            </tr>
            <tr>
              <td>Stored reports: the answer of each check paid with a credits key</td>
              <td>So you can see your history and open a report again</td>
              <td>{getConfig().REPORT_RETENTION_DAYS} days, then deleted</td>
            </tr>
            <tr>
              <td>The answer to a request sent with an Idempotency-Key</td>
              <td>So a retry gets the same answer and is not charged twice</td>
              <td>{hours(REPLAY_TTL_MS)} hours</td>
            </tr>
            <tr>
              <td>A new key waiting to be shown after payment</td>
              <td>To show it to you once</td>
              <td>Until shown, at most {hours(REVEAL_TTL_MS)} hour(s)</td>
            </tr>
            <tr>
              <td>Purchase references (Stripe session, customer and subscription ids)</td>
              <td>To credit, renew and refund plans</td>
              <td>While the plan runs, and as long as the law requires for accounting</td>
            </tr>
            <tr>
              <td>A session cookie when you sign in on this site (an opaque id, not your key)</td>
              <td>To keep you signed in</td>
              <td>Until you sign out, at most {SESSION_TTL_MS / 86_400_000} days</td>
            </tr>
          </tbody>
        </table>
      </TableWrap>
      <h2 id="cards">Card data</h2>
      <p>
        Payments by card happen on Stripe&apos;s pages. Stripe holds the card number and billing details; we never see or store them. We
        receive only what a purchase needs: that it was paid, for which plan, and its references.
      </p>
      <h2 id="not-kept">What we do not keep</h2>
      <ul>
        <li>Your credits key: only its hash. Nobody, us included, can show a lost key again.</li>
        <li>Logs never carry a key or a payment credential; where a key must be named, only its last four characters appear.</li>
        <li>No analytics, advertising or third-party scripts run on this site, and it loads nothing from other origins.</li>
      </ul>
      <h2 id="checked-sites">Sites you check</h2>
      <p>
        A visibility check fetches the page you name and its public site files from our server. What it read is part of the report we
        return and, for calls paid with a credits key, of the stored report, deleted after the retention period above.
      </p>
      <h2 id="questions">Questions and deletion</h2>
      <p>
        To have the reports of a key deleted early, or for any question about your data, <Link href="/contact">contact support</Link>.
      </p>
    </>
  );
}
