import Link from 'next/link';
import { PRICE_USD } from '@/lib/price';
import { pageMetadata } from '@/lib/site/metadata';
import { PolicyMeta } from '@/components/PolicyMeta';

export const generateMetadata = () =>
  pageMetadata({
    path: '/terms',
    title: 'Terms of service',
    description: 'The terms for using Paid Agent Checks: what a paid check delivers, what a call costs, what you may check, and the limits of a report.',
  });

export default function Terms() {
  return (
    <>
      <h1>Terms of service</h1>
      <p className="lead">Plain terms for a plain service. By calling the API or buying credits you accept them.</p>
      <PolicyMeta policy="terms" />
      <h2 id="service">The service</h2>
      <p>
        Paid Agent Checks runs three checks: the Agent Payment Readiness Assessment, which scores a payment workflow you describe; the
        AI Visibility Check, which fetches one public web page and its site files and reports what search and AI crawlers can see; and the
        Agent Payment Endpoint Check, which calls a paid HTTP endpoint you name as a paying agent does (and, only when you ask, pays it
        once from our own probe wallet on a test network) and reports what it met. Each
        fulfilled check costs {PRICE_USD} USD, paid per call over HTTP 402 or from a prepaid credits key.
      </p>
      <h2 id="charges">What is charged</h2>
      <ul>
        <li>A call is charged only when it is fulfilled: a check that fails, or a site that cannot be reached, costs nothing.</li>
        <li>The same request sent again with the same Idempotency-Key returns the stored result and is not charged again.</li>
        <li>
          Prepaid calls are valid for the period of their plan (see <Link href="/pricing">pricing</Link>); unused calls of an expired plan
          lapse. Refunds are described on the <Link href="/refunds">refunds page</Link>.
        </li>
      </ul>
      <h2 id="use">Acceptable use</h2>
      <ul>
        <li>Check only pages you are allowed to fetch. The check makes a handful of ordinary requests and reads at most 512 KB of the page.</li>
        <li>Do not use the service to probe private networks, to overload a site, or to get around our rate limits.</li>
        <li>Keep your credits key secret. Anyone holding it can spend its calls; rotate it on the account page if it leaks.</li>
      </ul>
      <h2 id="reports">What a report is</h2>
      <p>
        A report states what the check could see at the time it ran, scored against a published rubric. It is not a promise of any
        ranking, traffic, citation by an AI system, or payment outcome. Each report lists the limits of what it could see; the{' '}
        <Link href="/docs/checks#not-seen">docs</Link> list them all.
      </p>
      <h2 id="availability">Availability and changes</h2>
      <p>
        We aim to keep the service available but promise no uptime. Rubrics carry a version number; a change to scoring gets a new
        version, and a stored report keeps the version it was scored with. We may change these terms; the version in force is the one on
        this page when you make a call.
      </p>
      <h2 id="liability">Liability</h2>
      <p>
        The service is provided as is. Our liability for any claim is limited to what you paid us for the calls concerned. Questions:{' '}
        <Link href="/contact">contact support</Link>.
      </p>
    </>
  );
}
