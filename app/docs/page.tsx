import Link from 'next/link';
import { getConfig } from '@/lib/config';
import { checks, checksInWords } from '@/lib/checks/registry';
import { PRICE_USD } from '@/lib/price';
import { DOCS_PAGES } from '@/lib/docs/pages';
import { docsExamples } from '@/lib/docs/examples';
import { endpointDocs } from '@/lib/docs/reference';
import { docsPageMetadata } from '@/lib/site/metadata';
import { CodeBlock } from '@/components/CodeBlock';
import { MovedAnchor } from '@/components/docs/MovedAnchor';

export const generateMetadata = () => docsPageMetadata('/docs');
// Examples name this deployment's own origin, known only at run time.
export const dynamic = 'force-dynamic';

export default async function DocsQuickStart() {
  const examples = docsExamples(getConfig().APP_URL);
  const endpointAnchors = (await endpointDocs(getConfig().APP_URL)).map((d) => d.anchor);
  return (
    <>
      <MovedAnchor endpointAnchors={endpointAnchors} />
      <h1>Documentation</h1>
      <p className="lead">
        {checksInWords()} paid checks over HTTP, {PRICE_USD} USD per fulfilled request: pay per call over HTTP 402 (MPP card, MPP evm, x402
        v2), or spend a prepaid credits key. Every error is <code>application/problem+json</code>. People can also{' '}
        <Link href="/check">run the checks in the browser</Link>.
      </p>

      <h2 id="quick-start">Quick start</h2>
      <p>
        Set <code>BASE</code> to this service once; every example in these pages uses it.
      </p>
      <CodeBlock label="Set BASE">{examples.setBase}</CodeBlock>
      <p>
        Ask for a check without paying, and the answer is 402 with a challenge for each way to pay; a free <code>GET</code> on the same
        address describes the check, its price and its rubric.
      </p>
      <CodeBlock label="Unpaid request">{examples.unpaid}</CodeBlock>
      <p>
        With a <Link href="/pricing">prepaid credits key</Link>, the same request with <code>Authorization: Bearer</code> is answered 200,
        and the answer says how many calls are left. Send the same request with an <code>Idempotency-Key</code> to retry safely: the stored
        result comes back with <code>Idempotent-Replayed: true</code> and no second charge.
      </p>
      <CodeBlock label="Prepaid key example">{examples.prepaid}</CodeBlock>

      <h2 id="the-checks">The checks</h2>
      <ul>
        {checks().map((c) => (
          <li key={c.id}>
            <Link href={`/docs/checks#${c.id}`}>{c.service}</Link>: <code>POST {c.path}</code>, MCP tool <code>{c.toolName}</code>.{' '}
            {c.summary}.
          </li>
        ))}
      </ul>

      <h2 id="read-on">Read on</h2>
      <ul>
        {DOCS_PAGES.filter((p) => p.path !== '/docs').map((p) => (
          <li key={p.path}>
            <Link href={p.path}>{p.label}</Link>: {p.description}
          </li>
        ))}
      </ul>
    </>
  );
}
