import { ImageResponse } from 'next/og';
import { PRICE_USD } from '@/lib/price';

// The social card every page shares: generated from the price, so it cannot drift from what we charge.
export const alt = 'Paid Agent Checks: Agent Payment Readiness, AI Visibility and Payment Endpoint, per fulfilled check';
export const size = { width: 1200, height: 630 };
export const contentType = 'image/png';

export default function OpenGraphImage() {
  return new ImageResponse(
    (
      <div style={{ width: '100%', height: '100%', display: 'flex', flexDirection: 'column', justifyContent: 'space-between', padding: 72, background: '#ffffff', color: '#1b1f24', borderTop: '24px solid #3b2fc9' }}>
        <div style={{ display: 'flex', fontSize: 40, fontWeight: 700, color: '#3b2fc9' }}>Paid Agent Checks</div>
        <div style={{ display: 'flex', flexDirection: 'column' }}>
          <div style={{ fontSize: 72, fontWeight: 700, lineHeight: 1.1 }}>Is your site ready for AI agents?</div>
          <div style={{ fontSize: 36, color: '#4a5560', marginTop: 24 }}>Agent Payment Readiness · AI Visibility · Payment Endpoint</div>
        </div>
        <div style={{ display: 'flex', fontSize: 32, color: '#4a5560' }}>{PRICE_USD} USD per fulfilled check · pay per call over HTTP 402 or prepaid credits</div>
      </div>
    ),
    size,
  );
}
