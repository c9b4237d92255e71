import { afterAll, beforeAll } from 'vitest';
import { startRails, type Rails } from '../../scripts/rails/start';
import { startSeller, type Seller } from './seller';

// Apart from seller.ts because it registers vitest hooks: the benchmarks import seller.ts outside vitest.

/**
 * Starts the local rails and this service as seller once for the file, and stops both after it.
 * @example const live = sellerForThisFile(); it('…', () => checkPaymentEndpoint({ url: `${live.seller.origin}/api/agent/readiness` }));
 */
export function sellerForThisFile(options: Parameters<typeof startSeller>[1] = {}): { readonly rails: Rails; readonly seller: Seller } {
  let rails: Rails | undefined;
  let seller: Seller | undefined;
  beforeAll(async () => {
    rails = await startRails();
    seller = await startSeller(rails, options);
  }, 120_000);
  afterAll(async () => {
    await seller?.close();
    await rails?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('sellerForThisFile: the rails and the seller start in beforeAll; read them inside a test');
    return value;
  };
  return {
    get rails() {
      return started(rails);
    },
    get seller() {
      return started(seller);
    },
  };
}
