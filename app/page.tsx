import Link from 'next/link';
import { readinessOperation } from '@/lib/operations';
import { PRICE_USD } from '@/lib/price';
import { visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { CRAWLERS } from '@/lib/checks/visibility/crawlers';
import { ExampleReport } from '@/components/ExampleReport';
import { pageMetadata, SITE_DESCRIPTION } from '@/lib/site/metadata';

export const generateMetadata = () =>
  pageMetadata({ path: '/', title: 'Paid Agent Checks: agent payment readiness and AI visibility', description: SITE_DESCRIPTION, absoluteTitle: true });

export default function Home() {
  const visibility = visibilityCheckDescription();
  return (
    <>
      <h1>Paid checks for agent commerce</h1>
      <p className="lead">
        Two checks, {PRICE_USD} USD per fulfilled request: is a payment workflow ready for AI agents to pay through, and what can search
        and AI crawlers see of a page? Agents pay per call over HTTP 402; people buy prepaid credits here.
      </p>
      <div className="actions">
        <Link className="button" href="/pricing">
          See pricing
        </Link>
        <Link className="button secondary" href="/docs">
          Read the docs
        </Link>
      </div>

      <h2>What the checks do</h2>
      <div className="grid">
        <section className="card" aria-labelledby="check-readiness">
          <h3 id="check-readiness">{readinessOperation.service}</h3>
          <p>{readinessOperation.description}</p>
          <p>
            <code>POST {readinessOperation.path}</code> · <Link href="/docs#readiness-rubric">rubric</Link>
          </p>
        </section>
        <section className="card" aria-labelledby="check-visibility">
          <h3 id="check-visibility">{visibility.name}</h3>
          <p>{visibility.description}</p>
          <p>
            <code>POST /api/agent/ai-visibility</code> · {CRAWLERS.length} crawlers · <Link href="/docs#visibility-rubric">rubric</Link>
          </p>
        </section>
      </div>

      <h2>An example report</h2>
      <p className="muted">Computed by the same code the API runs, from the example request in the docs.</p>
      <ExampleReport />

      <h2>Who it is for</h2>
      <div className="grid">
        <section className="card" aria-labelledby="for-agents">
          <h3 id="for-agents">Agents</h3>
          <p>Call the API and pay in-band: MPP card, MPP on-chain USDC or x402 v2, or a prepaid key. The same checks are MCP tools.</p>
        </section>
        <section className="card" aria-labelledby="for-teams">
          <h3 id="for-teams">Teams shipping agent payments</h3>
          <p>Find the gaps before launch: blockers, a score against a published rubric, and a concrete fix for each finding.</p>
        </section>
        <section className="card" aria-labelledby="for-sites">
          <h3 id="for-sites">Site owners</h3>
          <p>See which search and AI crawlers your robots.txt lets in, how the page reads to a machine, and what to fix first.</p>
        </section>
      </div>
    </>
  );
}
