import { visibilityOperation } from '@/lib/operations';
import { describeGet, paidPost } from '@/lib/http/paid-route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// The check's own budget is 20 s; leave room for payment settlement after it.
export const maxDuration = 60;

export const POST = paidPost(visibilityOperation);
export const GET = describeGet(visibilityOperation);
