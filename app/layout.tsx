import type { ReactNode } from 'react';
import type { Metadata, Viewport } from 'next';
import { SiteFooter, SiteHeader } from '@/components/SiteChrome';
import { PRICE_USD } from '@/lib/price';
import './site.css';

export const metadata: Metadata = {
  title: { default: 'Paid Agent Checks', template: '%s · Paid Agent Checks' },
  description: `Agent Payment Readiness Assessment and AI Visibility Check, ${PRICE_USD} USD per fulfilled request.`,
};

// Every page carries a per-request script nonce (proxy.ts), which only a page rendered per request can
// have: a page prerendered at build time would hold nonce-less scripts that the policy blocks.
export const dynamic = 'force-dynamic';

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#content">
          Skip to content
        </a>
        <SiteHeader />
        <main id="content" tabIndex={-1}>
          {children}
        </main>
        <SiteFooter />
      </body>
    </html>
  );
}
