import Link from 'next/link';
import { getConfig } from '@/lib/config';
import { exampleBody } from '@/lib/checks/entry';
import { checkById, checks, checksInWords } from '@/lib/checks/registry';
import { PRICE_USD } from '@/lib/price';
import { ReportView } from '@/components/report-view/ReportView';
import { checksShown } from '@/components/checks';
import { pageMetadata, SITE_DESCRIPTION } from '@/lib/site/metadata';

export const generateMetadata = () =>
  pageMetadata({ path: '/', title: 'Paid Agent Checks: agent payments and AI visibility', description: SITE_DESCRIPTION, absoluteTitle: true });

export default function Home() {
  // Each check's card and example report: its own words (components/checks/<id>/) over its entry's description
  // and example answer, the answer payment directories show too, so the example is what the API answers.
  const shown = checksShown(checks().map((c) => c.id)).map(({ report, showcase }) => {
    const check = checkById(report.id)!;
    const example = exampleBody(check);
    const described = check.describe();
    return {
      id: check.id,
      check,
      description: showcase.description,
      facts: showcase.facts(described),
      rubric: `/docs/checks#${check.id}-rubric`,
      example: { body: example, source: showcase.source(example) },
    };
  });
  return (
    <>
      <h1>Paid checks for agent commerce</h1>
      <p className="lead">
        {checksInWords()} checks, {PRICE_USD} USD per fulfilled request: is a payment workflow ready for AI agents to pay through, what can search
        and AI crawlers see of a page, and what does an agent meet when it pays an endpoint? Run them here in your browser with a credits key, or let an agent call the API and pay per call
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
        {shown.map(({ id, check, description, facts, rubric }) => (
          <section key={id} className="card" aria-labelledby={`check-${id}`}>
            <h3 id={`check-${id}`}>{check.service}</h3>
            <p>{description ?? check.description}</p>
            <p>
              <code>POST {check.path}</code>
              {facts.map((fact) => ` · ${fact}`)} · <Link href={rubric}>rubric</Link>
            </p>
          </section>
        ))}
      </div>

      <h2>An example report of each check</h2>
      <p className="muted">
        The first screen of each, as a paid report opens: the score, the score by category and the fixes to make first.{' '}
        {shown.map(({ id, check, example }) => (
          <span key={id}>
            The {check.label} report is {example.source}.{' '}
          </span>
        ))}
      </p>
      {shown.map(({ id, check, example }) => (
        <section key={id} className="example-report" aria-label={`Example ${check.label} report`}>
          <p className="example-label">Example · {check.service}</p>
          <ReportView check={id} body={example.body} level={3} idPrefix={`example-${id}`} excerpt="/examples" />
          <p>
            <Link href={`/examples#example-${id}`}>The full example {check.label} report</Link>: every finding, the passed audits and the facts.
          </p>
        </section>
      ))}

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
