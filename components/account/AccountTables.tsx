import { PLANS } from '@/lib/credits/plans';
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
 * A day as the account shows it (UTC).
 * @example day('2026-11-23T12:00:00.000Z') // 'Nov 23, 2026'
 */
export const day = (iso: string) => new Date(iso).toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

export function GrantsTable({ grants }: { grants: Grant[] }) {
  if (!grants.length) return <p className="muted">No calls were bought with this key.</p>;
  return (
    <TableWrap label="Calls left per purchase">
      <table data-testid="grants">
        <caption className="visually-hidden">Calls left per purchase</caption>
        <ColumnHeads names={['Plan', 'Calls left', 'Used', 'Expires (UTC)']} />
        <tbody>
          {grants.map((g) => (
            <tr key={g.id}>
              <td>{PLAN_NAMES[g.plan] ?? g.plan}</td>
              <td>
                {g.callsLeft} of {g.calls}
              </td>
              <td>{g.used}</td>
              <td>
                {day(g.expiresAt)}
                {g.expired ? ' (expired)' : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

const USAGE_HEADS = ['When (UTC)', 'Check', 'Call id', 'Refunded', 'Refunded at (UTC)'];

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
            {rows.map((r) => (
              <tr key={r[2]}>
                {r.map((v, i) => (
                  <td key={i} className={i === 2 ? 'url' : undefined}>
                    {(i === 1 ? labels[v] : undefined) ?? (v || '—')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
