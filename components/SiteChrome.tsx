import Link from 'next/link';
import { PRICE_USD } from '@/lib/price';
import { SiteNav } from './SiteNav';

export function SiteHeader() {
  return (
    <header className="site-header">
      <div className="inner">
        <Link href="/" className="brand">
          Paid Agent Checks
        </Link>
        <SiteNav />
      </div>
    </header>
  );
}

export function SiteFooter() {
  return (
    <footer className="site-footer">
      <div className="inner">
        <p>
          {PRICE_USD} USD per fulfilled request, or prepaid credits. Checks report what they can see; they imply no ranking, traffic or
          payment outcome. <Link href="/docs/api#limits">Limits</Link>
        </p>
        <nav aria-label="Legal and support">
          <ul className="footer-links">
            <li><Link href="/terms">Terms</Link></li>
            <li><Link href="/privacy">Privacy</Link></li>
            <li><Link href="/refunds">Refunds</Link></li>
            <li><Link href="/contact">Contact support</Link></li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
