import type { Metadata } from 'next';
import { PurchaseStatus } from '@/components/PurchaseStatus';
import { readinessOperation } from '@/lib/operations';

// The address carries the Checkout Session id; it must not leak to other sites through Referer.
export const metadata: Metadata = { title: 'Purchase complete', referrer: 'no-referrer', robots: { index: false } };

export default async function PurchaseSuccess({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = (await searchParams).session_id;
  const sessionId = typeof raw === 'string' && raw !== '' ? raw : null;
  return (
    <>
      <h1>Thank you for your purchase</h1>
      <PurchaseStatus sessionId={sessionId} exampleBody={JSON.stringify(readinessOperation.example)} examplePath={readinessOperation.path} />
    </>
  );
}
