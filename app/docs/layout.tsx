import type { ReactNode } from 'react';
import { DocsNav } from '@/components/docs/DocsNav';

// Every documentation page: the sidebar of pages beside the page's own content.
export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="docs-layout">
      <DocsNav />
      <div className="docs-body">{children}</div>
    </div>
  );
}
