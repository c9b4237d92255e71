'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useState } from 'react';
import { DOCS_PAGES } from '@/lib/docs/pages';

/**
 * The documentation's pages, the current one marked. On a desktop it stands beside the page and stays in
 * view; on a phone it folds into one button that names the current page and opens the list.
 * @example <DocsNav />
 */
export function DocsNav() {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const current = DOCS_PAGES.find((p) => p.path === pathname);
  return (
    <nav className="docs-nav" aria-label="Documentation">
      <button type="button" className="docs-nav-toggle" aria-expanded={open} aria-controls="docs-nav-list" onClick={() => setOpen(!open)}>
        <span>Docs: {current?.label ?? 'pages'}</span>
        <span aria-hidden="true">{open ? '▴' : '▾'}</span>
      </button>
      <ol id="docs-nav-list" className={open ? 'open' : undefined}>
        {DOCS_PAGES.map((p) => (
          <li key={p.path}>
            <Link href={p.path} aria-current={p.path === pathname ? 'page' : undefined} onClick={() => setOpen(false)}>
              {p.label}
            </Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}
