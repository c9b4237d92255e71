import { PurchaseStatus } from '@/components/PurchaseStatus';
import { checks } from '@/lib/checks/registry';
import { pageMetadata } from '@/lib/site/metadata';

// The address carries the Checkout Session id; it must not leak to other sites through Referer.
export const generateMetadata = () => ({
  ...pageMetadata({ path: '/purchase/success', title: 'Purchase complete', description: 'Your new credits key, shown once after payment, and how to spend its calls.', index: false }),
  referrer: 'no-referrer' as const,
});

export default async function PurchaseSuccess({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = (await searchParams).session_id;
  const sessionId = typeof raw === 'string' && raw !== '' ? raw : null;
  // The first check of the registry is the example of a paid call with the new key.
  const [example] = checks();
  return (
    <>
      <h1>Thank you for your purchase</h1>
      <PurchaseStatus sessionId={sessionId} exampleBody={JSON.stringify(example.example)} examplePath={example.path} />
    </>
  );
}
