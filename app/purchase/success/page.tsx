import { PurchaseStatus } from '@/components/PurchaseStatus';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { pageMetadata } from '@/lib/site/metadata';

// The address carries the Checkout Session id; it must not leak to other sites through Referer.
export const generateMetadata = () => ({
  ...pageMetadata({ path: '/purchase/success', title: 'Purchase complete', description: 'Your new credits key, shown once after payment, and how to spend its calls.', index: false }),
  referrer: 'no-referrer' as const,
});

export default async function PurchaseSuccess({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = (await searchParams).session_id;
  const sessionId = typeof raw === 'string' && raw !== '' ? raw : null;
  return (
    <>
      <h1>Thank you for your purchase</h1>
      <PurchaseStatus sessionId={sessionId} exampleBody={JSON.stringify(readinessCheck.example)} examplePath={readinessCheck.path} />
    </>
  );
}
