import { readinessOperation } from '@/lib/operations';
import { describeGet, paidPost } from '@/lib/paid-call/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const POST = paidPost(readinessOperation);
export const GET = describeGet(readinessOperation);
