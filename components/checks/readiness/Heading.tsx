import type { ReactNode } from 'react';

// Headings below a section's: the report's title may be an h3 (under a page section), so a finding's title
// can be an h5.

export type Depth = 2 | 3 | 4 | 5 | 6;

export const deeper = (d: Depth): Depth => Math.min(6, d + 1) as Depth;

export function H({ depth, id, className, children }: { depth: Depth; id?: string; className?: string; children: ReactNode }) {
  const Tag = `h${depth}` as 'h2';
  return (
    <Tag id={id} className={className}>
      {children}
    </Tag>
  );
}
