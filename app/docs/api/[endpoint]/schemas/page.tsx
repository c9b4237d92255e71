import Link from 'next/link';
import { notFound } from 'next/navigation';
import { getConfig } from '@/lib/config';
import { endpointDoc, endpointPageMetadata } from '@/lib/docs/endpoint-page';
import { EndpointSchemas } from '@/components/docs/EndpointSection';

type Props = { params: Promise<{ endpoint: string }> };

export const generateMetadata = async ({ params }: Props) => endpointPageMetadata(await endpointDoc(getConfig().APP_URL, (await params).endpoint), 'schemas');
export const dynamic = 'force-dynamic';

export default async function DocsApiEndpointSchemas({ params }: Props) {
  const doc = await endpointDoc(getConfig().APP_URL, (await params).endpoint);
  if (!doc || (doc.inputSchema === undefined && doc.outputSchema === undefined)) notFound();
  const route = `${doc.method} ${doc.path.split('?')[0]}`;
  return (
    <>
      <p className="muted">
        <Link href="/docs/api">REST reference</Link> › <Link href={`/docs/api/${doc.anchor}`}>{route}</Link>
      </p>
      <h1>
        <code>{route}</code>: JSON Schemas
      </h1>
      <EndpointSchemas doc={doc} />
    </>
  );
}
