import { headers } from 'next/headers';

/**
 * A schema.org JSON-LD block. It carries the request's script nonce (proxy.ts puts it in the request's
 * Content-Security-Policy), so the policy never has to make an exception for it. `<` is escaped so no
 * value can close the script element.
 */
export async function JsonLd({ data }: { data: unknown }) {
  const policy = (await headers()).get('content-security-policy') ?? '';
  const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
  return <script type="application/ld+json" nonce={nonce} dangerouslySetInnerHTML={{ __html: JSON.stringify(data).replace(/</g, '\\u003c') }} />;
}
