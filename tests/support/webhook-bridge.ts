import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { POST as webhookPOST } from '@/app/api/billing/webhook/route';
import type { StandaloneCheckoutFake } from '@/scripts/rails/stripe-checkout-fake';

/**
 * Points the Stripe Checkout fake's webhook deliveries at our real webhook route, in-process, over a
 * local HTTP server; `onAnswer` sees each answer of the route. Close the returned server when done.
 * @example const bridge = await bridgeWebhooks(fake); … await new Promise((r) => bridge.close(r));
 */
export async function bridgeWebhooks(fake: StandaloneCheckoutFake, onAnswer?: (answer: Response) => void): Promise<Server> {
  const bridge = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const response = await webhookPOST(new Request('http://localhost:3000/api/billing/webhook', {
        method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks),
      }));
      onAnswer?.(response.clone());
      res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' });
      res.end(await response.text());
    });
  });
  await new Promise<void>((r) => bridge.listen(0, '127.0.0.1', r));
  fake.setWebhookUrl(`http://127.0.0.1:${(bridge.address() as AddressInfo).port}/api/billing/webhook`);
  return bridge;
}
