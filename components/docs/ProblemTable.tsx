import { problemTable } from '@/lib/docs/reference';
import { TableWrap } from '../TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

// Every problem type the API answers with, as the docs' API page lists them.

export function ProblemTable() {
  return (
    <TableWrap label="Problem types">
      <table>
        <caption>Every problem type</caption>
        <ColumnHeads names={['Status', 'Type', 'Title']} />
        <tbody>
          {problemTable().map((p) => (
            <tr key={p.kind} id={`problem-${p.kind}`}>
              <td>{p.status}</td>
              <td>
                <code>{p.type}</code>
              </td>
              <td>{p.title}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
