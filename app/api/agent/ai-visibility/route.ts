import { visibilityOperation } from '@/lib/operations';
import { describeGet, paidPost } from '@/lib/paid-call/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// Worst case on a 402 rail: verify (10 s) + the check (20 s) + settlement (up to 60 s).
export const maxDuration = 120;

export const POST = paidPost(visibilityOperation);
export const GET = describeGet(visibilityOperation);
