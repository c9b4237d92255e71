import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways when it is wider than the screen. Keyboard users can scroll it too: the
 * wrapper is focusable and named, as a scrollable region must be.
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
