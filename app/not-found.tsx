import type { Metadata } from 'next';
import Link from 'next/link';

export const metadata: Metadata = { title: 'Page not found', robots: { index: false } };

// Rendered inside the root layout, so a lost visitor keeps the navigation and the footer.
export default function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p className="lead">There is nothing at this address. It may have moved, or the link may be mistyped.</p>
      <ul>
        <li><Link href="/">Home</Link>: what the checks do</li>
        <li><Link href="/check">Run a check</Link> with your credits key</li>
        <li><Link href="/docs">Docs</Link>: the API, MCP and the rubrics</li>
        <li><Link href="/contact">Contact support</Link> if a link on this site brought you here</li>
      </ul>
    </>
  );
}
