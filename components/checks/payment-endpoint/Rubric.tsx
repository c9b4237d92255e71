import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';
import type { EndpointDescribed } from './types';
import { Prose } from '@/components/report-view/Prose';

// The endpoint check's rubric as its free GET publishes it (the entry's `describe()`), laid out for people on
// /docs/checks: the items with their points and what each verifies, the bounds on what it sends, and what the
// paid round trip may spend.

export function EndpointRubric({ described }: { described: unknown }) {
  const d = described as EndpointDescribed;
  const total = d.rubric.reduce((n, i) => n + i.points, 0);
  return (
    <>
      <p>
        Check version <code>{d.checkVersion}</code>, rubric version <code>{d.rubricVersion}</code>. Score 0-{d.scoreMax}. <Prose text={d.scoringRule} />
      </p>
      <p>
        Each item is <strong>pass</strong>, <strong>warning</strong>, <strong>fail</strong>, <strong>not applicable</strong> (the endpoint
        does not use what it tests) or <strong>not tested</strong> (with why), and carries its evidence: the request made and the answer,
        decoded where it was encoded.
      </p>
      <TableWrap label="Endpoint rubric items">
        <table>
          <caption>Rubric items ({total} points)</caption>
          <ColumnHeads names={['Item', 'Points', 'What it verifies']} />
          <tbody>
            {d.rubric.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  {item.title}
                  <div className="hint">
                    <code>{item.id}</code>
                  </div>
                </th>
                <td>{item.points}</td>
                <td><Prose text={item.verifies} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p>
        Bounds: at most {d.bounds.maxRequestsPerDomain} requests to the endpoint&apos;s registrable domain per check, each answered within{' '}
        {d.bounds.requestTimeoutSeconds} s, headers read up to {d.bounds.maxHeaderBytes / 1024} KiB and bodies up to{' '}
        {d.bounds.maxBodyBytes / 1024 / 1024} MiB. Every request is listed in the report.
      </p>
      <p>
        The paid round trip (<code>paidRoundTrip: true</code>) is {d.paidRoundTrip.enabled ? 'enabled here' : 'not enabled on this server'}: it
        pays only on {d.paidRoundTrip.networks.map((n, i) => (
          <span key={n}>
            {i ? ', ' : ''}
            <code>{n}</code>
          </span>
        ))}{' '}
        and at most {d.paidRoundTrip.maxSpendUnitsPerCheck} base units per check.
      </p>
    </>
  );
}
