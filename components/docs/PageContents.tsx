import type { ReactNode } from 'react';

/** One entry of a docs page's contents: the section's anchor and what the list shows for it. */
export interface ContentsEntry {
  anchor: string;
  label: ReactNode;
}

/**
 * The "On this page" box a long docs page opens with: a link to each of its sections, in order.
 * @example <PageContents entries={[{ anchor: 'errors', label: 'Errors' }]} />
 */
export function PageContents({ entries }: { entries: readonly ContentsEntry[] }) {
  return (
    <nav className="docs-toc" aria-labelledby="toc-title">
      <h2 id="toc-title">On this page</h2>
      <ol>
        {entries.map((e) => (
          <li key={e.anchor}>
            <a href={`#${e.anchor}`}>{e.label}</a>
          </li>
        ))}
      </ol>
    </nav>
  );
}
