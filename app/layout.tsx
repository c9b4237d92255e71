import type { ReactNode } from 'react';
import type { Metadata, Viewport } from 'next';
import { SiteFooter, SiteHeader } from '@/components/SiteChrome';
import { JsonLd } from '@/components/JsonLd';
import { publicOrigin, SITE_DESCRIPTION, SITE_NAME, siteJsonLd } from '@/lib/site/metadata';
import './site.css';

// The public origin is configuration, read at run time: every address in the metadata is absolute from it.
// Pages add their own title, description and canonical through pageMetadata (lib/site/metadata.ts); a
// canonical is never set here, where a page that forgot its own would inherit the home page's.
export function generateMetadata(): Metadata {
  return {
    metadataBase: new URL(`${publicOrigin()}/`),
    title: { default: SITE_NAME, template: `%s · ${SITE_NAME}` },
    description: SITE_DESCRIPTION,
    applicationName: SITE_NAME,
    openGraph: { type: 'website', siteName: SITE_NAME, locale: 'en_US' },
    twitter: { card: 'summary_large_image' },
  };
}

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
        <JsonLd data={siteJsonLd()} />
      </body>
    </html>
  );
}
