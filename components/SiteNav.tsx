'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/', label: 'Home' },
  { href: '/check', label: 'Run a check' },
  { href: '/pricing', label: 'Pricing' },
  { href: '/docs', label: 'Docs' },
  { href: '/account', label: 'Account' },
];

/** `page` on the link's own page; `true` on a page inside its section (a docs page under /docs). */
function currentness(pathname: string, href: string): 'page' | 'true' | undefined {
  if (pathname === href) return 'page';
  return href !== '/' && pathname.startsWith(`${href}/`) ? 'true' : undefined;
}

export function SiteNav() {
  const pathname = usePathname();
  return (
    <nav className="site-nav" aria-label="Main">
      <ul>
        {LINKS.map((l) => (
          <li key={l.href}>
            <Link href={l.href} aria-current={currentness(pathname, l.href)}>
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
