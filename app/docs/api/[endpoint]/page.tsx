import Link from 'next/link';
import { notFound } from 'next/navigation';
import { getConfig } from '@/lib/config';
import { endpointDoc, endpointPageMetadata } from '@/lib/docs/endpoint-page';
import { EndpointSection } from '@/components/docs/EndpointSection';

type Props = { params: Promise<{ endpoint: string }> };

export const generateMetadata = async ({ params }: Props) => endpointPageMetadata(await endpointDoc(getConfig().APP_URL, (await params).endpoint), 'page');
// Examples name this deployment's own origin, known only at run time.
export const dynamic = 'force-dynamic';

export default async function DocsApiEndpoint({ params }: Props) {
  const doc = await endpointDoc(getConfig().APP_URL, (await params).endpoint);
  if (!doc) notFound();
  return (
    <>
      <p className="muted">
        <Link href="/docs/api">REST reference</Link>
      </p>
      <h1>
        <code>{doc.method} {doc.path.split('?')[0]}</code>
      </h1>
      <EndpointSection doc={doc} />
    </>
  );
}
