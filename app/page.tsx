import Link from 'next/link';
import { getConfig } from '@/lib/config';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { PRICE_USD } from '@/lib/price';
import { visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { CRAWLERS } from '@/lib/checks/visibility/crawlers';
import { ReportView } from '@/components/report-view/ReportView';
import { exampleReadinessBody, exampleVisibilityBody } from '@/lib/site/examples';
import { pageMetadata, SITE_DESCRIPTION } from '@/lib/site/metadata';

export const generateMetadata = () =>
  pageMetadata({ path: '/', title: 'Paid Agent Checks: agent payment readiness and AI visibility', description: SITE_DESCRIPTION, absoluteTitle: true });

export default function Home() {
  const visibility = visibilityCheckDescription();
  const example = exampleVisibilityBody();
  return (
    <>
      <h1>Paid checks for agent commerce</h1>
      <p className="lead">
        Two checks, {PRICE_USD} USD per fulfilled request: is a payment workflow ready for AI agents to pay through, and what can search
        and AI crawlers see of a page? Run them here in your browser with a credits key, or let an agent call the API and pay per call
        over HTTP 402.
      </p>
      <div className="actions">
        <Link className="button" href="/check">
          Run a check
        </Link>
        <Link className="button secondary" href="/pricing">
          See pricing
        </Link>
        <Link className="button secondary" href="/docs">
          Read the docs
        </Link>
      </div>

      <h2>What the checks do</h2>
      <div className="grid">
        <section className="card" aria-labelledby="check-visibility">
          <h3 id="check-visibility">{visibility.name}</h3>
          <p>{visibility.description}</p>
          <p>
            <code>POST /api/agent/ai-visibility</code> · {CRAWLERS.length} crawlers · <Link href="/docs#visibility-rubric">rubric</Link>
          </p>
        </section>
        <section className="card" aria-labelledby="check-readiness">
          <h3 id="check-readiness">{readinessCheck.service}</h3>
          <p>{readinessCheck.description}</p>
          <p>
            <code>POST {readinessCheck.path}</code> · <Link href="/docs#readiness-rubric">rubric</Link>
          </p>
        </section>
      </div>

      <h2>An example report of each check</h2>
      <p className="muted">
        These are examples, shown exactly as a paid report is. The visibility report is a real run of the check against a demonstration
        shop at <code>{new URL(example.report.checkedUrl).host}</code>, a reserved name that is not a real site; the readiness report is computed by
        the same code the API runs, from the example request in the docs.
      </p>
      <section className="example-report" aria-label="Example AI Visibility report">
        <p className="example-label">Example · AI Visibility Check</p>
        <ReportView body={example} level={3} idPrefix="example-visibility" />
      </section>
      <section className="example-report" aria-label="Example readiness report">
        <p className="example-label">Example · {readinessCheck.service}</p>
        <ReportView body={exampleReadinessBody()} level={3} idPrefix="example-readiness" />
      </section>

      <h2>Who it is for</h2>
      <div className="grid">
        <section className="card" aria-labelledby="for-sites">
          <h3 id="for-sites">Site owners</h3>
          <p>
            See which search and AI crawlers your robots.txt lets in, how the page reads to a machine, and what to fix first. Buy a few
            calls, <Link href="/check">run the check here</Link>, and keep every report for {getConfig().REPORT_RETENTION_DAYS} days.
          </p>
        </section>
        <section className="card" aria-labelledby="for-teams">
          <h3 id="for-teams">Teams shipping agent payments</h3>
          <p>Find the gaps before launch: blockers, a score against a published rubric, and a concrete fix for each finding.</p>
        </section>
        <section className="card" aria-labelledby="for-agents">
          <h3 id="for-agents">Agents</h3>
          <p>Call the API and pay in-band: MPP card, MPP on-chain USDC or x402 v2, or a prepaid key. The same checks are MCP tools.</p>
        </section>
      </div>
    </>
  );
}
