import type { ReactNode } from 'react';
import { ENDPOINT_STAGES, bodySourceWords, endpointReport, endpointStage, itemStateWords } from '@/lib/checks/payment-endpoint/report';
import type { Evidence } from '@/lib/checks/payment-endpoint/types';
import { SEVERITY_ORDER } from '@/lib/checks/severity';
import { findingAnchor, FoldedFinding, Limits, PassedAudits, type Level } from '@/components/report-view/parts';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';
import type { CheckViewProps } from '../types';
import type { EndpointBody, ViewEndpointFinding, ViewItem } from './types';
import './payment-endpoint.css';
import { Prose } from '@/components/report-view/Prose';

// The Agent Payment Endpoint Check's report below the shared header (score, verdict, summary, exports, score by
// stage, top fixes): what was sent, the findings folded (open: fix, verify steps and sources), the passed items,
// each rubric item by stage with its state and the evidence behind it (the request and the answer decoded; each
// stage's first item the target of its gauge), the transfers the paid round trip made, and every request the
// check sent.

type Depth = 3 | 4 | 5 | 6;
const deeper = (d: Depth): Depth => Math.min(6, d + 1) as Depth;

function H({ depth, id, className, children }: { depth: Depth; id?: string; className?: string; children: ReactNode }) {
  const Tag = `h${depth}` as 'h3';
  return (
    <Tag id={id} className={className}>
      {children}
    </Tag>
  );
}

/** A link only to a plain https address: a stored body is data, never a script address. */
const isHttps = (url: string) => /^https:\/\/[^\s]+$/.test(url);
const TESTED = new Set(['pass', 'warn', 'fail']);

export function EndpointReportView({ body, level, idPrefix }: CheckViewProps) {
  return <EndpointReport body={body as EndpointBody} level={level} idPrefix={idPrefix} />;
}

function EndpointReport({ body, level, idPrefix }: { body: EndpointBody; level: Level; idPrefix: string }) {
  const r = body.report;
  const section = (level + 1) as Depth;
  const findings = r.findings ?? [];
  const requests = r.requests ?? [];
  const transfers = r.transfers ?? [];
  const byItem = new Map<string, number>();
  for (const f of findings) if (f.item) byItem.set(f.item, (byItem.get(f.item) ?? 0) + 1);
  return (
    <>
      <p className="muted" data-testid="endpoint-context">
        <code className="url">
          {r.endpoint.method ?? 'POST'} {r.endpoint.url}
        </code>{' '}
        sent with {bodySourceWords(r.endpoint.bodySource)}
        {r.endpoint.mcp ? (
          <>
            {' '}
            · MCP tool <code>{r.endpoint.mcp.tool}</code> at <span className="url">{r.endpoint.mcp.url}</span>
          </>
        ) : null}
        {r.coverage ? ` · ${r.coverage.testedPoints} of ${r.coverage.totalPoints} rubric points could be tested` : null}
      </p>

      <div className="pe-section">
        <H depth={section} id={`${idPrefix}-findings`}>Findings, most severe first</H>
        {findings.length ? (
          <ul className="findings pe-findings">
            {SEVERITY_ORDER.flatMap((severity) =>
              findings.map((f, index) => ({ f, index })).filter(({ f }) => f.severity === severity),
            ).map(({ f, index }) => (
              <FindingCard key={`${f.id}-${index}`} finding={f} anchor={findingAnchor(idPrefix, index)} depth={deeper(section)} items={r.items} />
            ))}
          </ul>
        ) : (
          <p>{r.items.some((i) => TESTED.has(i.state)) ? 'No findings: every item tested earned its points.' : 'No findings: no item could be tested.'}</p>
        )}
      </div>

      <PassedAudits passed={endpointReport.passed?.(body) ?? []} idPrefix={idPrefix} />

      <div className="pe-section">
        <H depth={section} id={`${idPrefix}-items`}>Rubric items</H>
        <ul className="pe-items" data-testid="endpoint-items">
          {ENDPOINT_STAGES.flatMap((stage) => r.items.filter((item) => endpointStage(item.id) === stage.key).map((item, i) => (
            <ItemCard key={item.id} item={item} findings={byItem.get(item.id) ?? 0} depth={deeper(section)} anchor={i === 0 ? `${idPrefix}-stage-${stage.key}` : undefined} stage={i === 0 ? stage.label : undefined} />
          )))}
        </ul>
      </div>

      <div className="pe-section">
        <H depth={section} id={`${idPrefix}-transfers`}>Transfers made</H>
        {transfers.length ? (
          <TableWrap label="Transfers the check made">
            <table className="stack-on-phone" data-testid="endpoint-transfers">
              <caption className="visually-hidden">Transfers the check made, as read back on chain</caption>
              <ColumnHeads names={['Step', 'Network', 'Amount (base units)', 'Paid to', 'Transaction']} />
              <tbody>
                {transfers.map((t) => (
                  <tr key={`${t.txHash}-${t.step}`}>
                    <th scope="row">{t.step}</th>
                    <td data-label="Network"><code className="nobreak">{t.network}</code></td>
                    <td data-label="Amount">{t.amount} <span className="hint">of <code className="url">{t.asset}</code></span></td>
                    <td data-label="Paid to"><code className="url">{t.payTo}</code></td>
                    <td data-label="Transaction"><code className="url">{t.txHash}</code></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : (
          <p>None: the check paid nothing{r.items.some((i) => i.id === 'paid-round-trip' && TESTED.has(i.state)) ? '' : ' (no paid round trip was made)'}.</p>
        )}
      </div>

      <details className="report-more" data-testid="endpoint-requests">
        <summary>
          Every request the check sent ({requests.length}
          {r.outbound ? `; at most ${r.outbound.maxPerDomain} per domain` : ''})
        </summary>
        <TableWrap label="Requests the check sent">
          <table className="stack-on-phone pe-requests">
            <caption className="visually-hidden">Every request the check sent, in order</caption>
            <ColumnHeads names={['#', 'Purpose', 'Request', 'Status', 'Bytes', 'Time']} />
            <tbody>
              {requests.map((q, i) => (
                <tr key={`${i}-${q.url}`}>
                  <th scope="row">{i + 1}</th>
                  <td data-label="Purpose">{q.purpose}</td>
                  <td data-label="Request"><code className="url">{q.method} {q.url}</code></td>
                  <td data-label="Status">{q.status ?? <span className="pe-no-answer">{q.error ?? 'no answer'}</span>}</td>
                  <td data-label="Bytes">{q.bytes}</td>
                  <td data-label="Time" className="nobreak">{q.ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
      <Limits limits={body.limits} />
    </>
  );
}

function ItemCard({ item, findings, depth, anchor, stage }: { item: ViewItem; findings: number; depth: Depth; anchor?: string; stage?: string }) {
  const tested = TESTED.has(item.state);
  const evidence = item.evidence ?? [];
  return (
    <li className={`pe-item state-${item.state}`} data-testid="endpoint-item" data-state={item.state} id={anchor}>
      {stage ? <p className="pe-stage">{stage}</p> : null}
      <div className="pe-item-head">
        <H depth={depth} className="pe-item-title">{item.title ?? 'An item of this rubric'}</H>
        <span className={`badge state-${item.state}`} data-testid="item-state">{itemStateWords(item.state)}</span>
        <span className="pe-points">
          {tested ? `${item.points ?? 0} / ${item.pointsMax ?? 0} points` : `${item.pointsMax ?? 0} points, not scored`}
        </span>
      </div>
      {item.why ? <p><Prose text={item.why} /></p> : null}
      {findings ? <p className="hint">{findings} finding{findings === 1 ? "" : "s"} above.</p> : null}
      {evidence.length ? (
        <details className="pe-evidence">
          <summary>Evidence ({evidence.length})</summary>
          <ol>
            {evidence.map((e, i) => (
              <EvidenceEntry key={i} evidence={e} />
            ))}
          </ol>
        </details>
      ) : null}
    </li>
  );
}

function EvidenceEntry({ evidence: e }: { evidence: Evidence }) {
  return (
    <li>
      <p>
        <code className="url">{e.request}</code> → {e.status === null ? <span className="pe-no-answer">no answer</span> : <strong>{e.status}</strong>}
      </p>
      {e.note ? <p className="hint"><Prose text={e.note} /></p> : null}
      {e.answer !== undefined ? (
        // Focusable, so a keyboard can scroll a wide answer.
        <pre className="pe-json" tabIndex={0} aria-label={`Answer to ${e.request}`}>
          {JSON.stringify(e.answer, null, 2)}
        </pre>
      ) : null}
      {e.txHashes?.length ? (
        <p>
          Transactions:{' '}
          {e.txHashes.map((h) => (
            <code key={h} className="url">
              {h}{' '}
            </code>
          ))}
        </p>
      ) : null}
    </li>
  );
}

function FindingCard({ finding: f, anchor, depth, items }: { finding: ViewEndpointFinding; anchor: string; depth: Depth; items: ViewItem[] }) {
  const item = items.find((i) => i.id === f.item);
  return (
    <FoldedFinding id={anchor} testId="endpoint-finding" title={f.title ?? 'A finding of this check'} severity={f.severity} pointsLost={f.pointsLost} fix={f.fix} note={item?.title}>
      {f.observed ? (
        <p>
          <strong>Observed:</strong> <Prose text={f.observed} />
        </p>
      ) : null}
      {f.why ? <p className="muted"><Prose text={f.why} /></p> : null}
      {f.verify?.length ? (
        <>
          <H depth={depth}>How to verify</H>
          <ol>
            {f.verify.map((v) => (
              <li key={v}>{v}</li>
            ))}
          </ol>
        </>
      ) : null}
      {f.references?.length ? (
        <>
          <H depth={depth}>Sources</H>
          <ul>
            {f.references.map((ref) => (
              <li key={ref.url}>{isHttps(ref.url) ? <a href={ref.url} rel="noopener noreferrer">{ref.title}</a> : ref.title}</li>
            ))}
          </ul>
        </>
      ) : null}
    </FoldedFinding>
  );
}
