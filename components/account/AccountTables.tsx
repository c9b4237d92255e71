import type { ReactNode } from 'react';
import { PLANS } from '@/lib/credits/plans';
import { reportDate } from '@/lib/checks/entry';
import { longDate } from '@/lib/site/legal';
import { TableWrap } from '../TableWrap';
import { ColumnHeads } from '../ColumnHeads';

// The account's tables, shared by the signed-in page (read by the session's key) and the key lookup.

interface Grant {
  id: string;
  plan: string;
  calls: number;
  used: number;
  callsLeft: number;
  expiresAt: string;
  expired: boolean;
}

const PLAN_NAMES: Record<string, string> = { ...Object.fromEntries(PLANS.map((p) => [p.id, p.name])), demo: 'Demo' };

/**
 * A day as every page writes one, from a timestamp (its UTC day).
 * @example day('2026-11-23T12:00:00.000Z') // '23 November 2026'
 */
export const day = (iso: string) => longDate(iso.slice(0, 10));

/**
 * A moment as every page writes one (the reports' date in words), the timestamp kept for machines.
 * @example <When iso="2026-11-23T12:00:00.000Z" /> // <time dateTime="2026-11-23T12:00:00.000Z">23 November 2026, 12:00 UTC</time>
 */
export function When({ iso }: { iso: string }) {
  return <time dateTime={iso}>{reportDate(iso)}</time>;
}

export function GrantsTable({ grants }: { grants: Grant[] }) {
  if (!grants.length) return <p className="muted">No calls were bought with this key.</p>;
  return (
    <TableWrap label="Calls left per purchase">
      <table data-testid="grants">
        <caption className="visually-hidden">Calls left per purchase</caption>
        <ColumnHeads names={['Plan', 'Calls left', 'Used', 'Expires']} />
        <tbody>
          {grants.map((g) => (
            <tr key={g.id}>
              <td>{PLAN_NAMES[g.plan] ?? g.plan}</td>
              <td>
                {g.callsLeft} of {g.calls}
              </td>
              <td>{g.used}</td>
              <td>
                <time dateTime={g.expiresAt}>{day(g.expiresAt)}</time>
                {g.expired ? ' (expired)' : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

const USAGE_HEADS = ['When', 'Check', 'Call reference', 'Refunded'];

/** Whether a call was refunded and when, in one cell. */
function refunded(at: string): ReactNode {
  return at ? (
    <>
      Yes, <When iso={at} />
    </>
  ) : (
    'No'
  );
}

/**
 * The key's spent calls, as `npm run keys -- usage` prints them, with the same rows as a CSV download; the page
 * names each check by its label (`labels`: operation id → label), the CSV keeps the operation id.
 */
export function UsageList({ rows, csv, labels }: { rows: string[][]; csv: string; labels: Record<string, string> }) {
  if (!rows.length) return <p className="muted">No calls spent with this key yet.</p>;
  return (
    <>
      <p>
        <a className="button secondary" download="credits-usage.csv" href={`data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`} data-testid="usage-csv">
          Download as CSV
        </a>
      </p>
      <TableWrap label="Calls spent">
        <table data-testid="usage">
          <caption className="visually-hidden">Calls spent with this key, newest first</caption>
          <ColumnHeads names={USAGE_HEADS} />
          <tbody>
            {rows.map(([at, operation, reference, , refundedAt]) => (
              <tr key={reference}>
                <td>{at ? <When iso={at} /> : '—'}</td>
                <td>{labels[operation] ?? 'A check no longer offered'}</td>
                <td className="url">
                  <code>{reference}</code>
                </td>
                <td>{refunded(refundedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
