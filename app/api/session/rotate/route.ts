import { rotatePost } from '@/lib/session/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** A new key with the same grants and reports; the old one is refused from now on. */
export const POST = rotatePost;
