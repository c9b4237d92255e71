import Link from 'next/link';

export default function ReportNotFound() {
  return (
    <>
      <h1>Report not found</h1>
      <p className="lead">
        No report of yours has this address. It may have expired, or it was paid for with another key: a report opens only for the key
        that paid for it.
      </p>
      <p>
        <Link href="/account#history">See your reports</Link> · <Link href="/check">Run a check</Link> · <Link href="/contact">Contact support</Link>
      </p>
    </>
  );
}
