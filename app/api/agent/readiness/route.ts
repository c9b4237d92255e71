import { readinessOperation } from '@/lib/operations';
import { describeGet, paidPost } from '@/lib/http/paid-route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const POST = paidPost(readinessOperation);
export const GET = describeGet(readinessOperation);
