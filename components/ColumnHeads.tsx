/**
 * A table's header row of column headings, each `scope="col"` so screen readers announce it with every cell below.
 * @example <table><ColumnHeads names={['Item', 'Earned', 'Criterion']} /><tbody>…</tbody></table>
 */
export function ColumnHeads({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}
