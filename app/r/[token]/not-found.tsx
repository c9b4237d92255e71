import Link from 'next/link';

export default function SharedReportNotFound() {
  return (
    <>
      <h1>Link not found</h1>
      <p className="lead">This link does not open a report: its owner may have stopped sharing it, the key that paid for it may have been revoked, or the report expired.</p>
      <p>
        <Link href="/check">Run a check of your own</Link>
      </p>
    </>
  );
}
