// What a payment says to the payer, as objects inside and as header values only at an edge. The 402's x402 terms
// and a paid call's receipts travel through the pipeline as x402's PaymentRequired and SettleResponse and MPP's
// Receipt; the REST transport writes them as PAYMENT-REQUIRED, PAYMENT-RESPONSE and Payment-Receipt, the MCP
// transport puts the objects in its result as they are, and a replay record keeps the header form it always has.
// The codecs are mppx's own (the same ones that wrote the headers we read back), so a value read and written again
// is the same bytes.
import { Receipt, x402 } from 'mppx';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';

/** The receipts of a paid call: MPP's (card or evm) and, for an x402 payment, x402's settlement too. */
export interface PaymentReceipt {
  mpp: Receipt.Receipt | null;
  x402: SettleResponse | null;
}

/** The receipt of a call nobody paid for with a credential (a prepaid key's). */
export const NO_RECEIPT: PaymentReceipt = Object.freeze({ mpp: null, x402: null });

const RECEIPT_HEADER = 'Payment-Receipt';
const SETTLEMENT_HEADER = 'PAYMENT-RESPONSE';

/**
 * The receipts among response headers mppx wrote (or a replay record kept); a header that cannot be read is left out.
 * @example receiptFromHeaders({ 'Payment-Receipt': 'eyJtZXRob2Qi…' }).mpp?.method // 'evm'
 */
export function receiptFromHeaders(headers: Record<string, string>): PaymentReceipt {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    mpp: read(byName.get(RECEIPT_HEADER.toLowerCase()), (v) => Receipt.deserialize(v)),
    x402: read(byName.get(SETTLEMENT_HEADER.toLowerCase()), (v) => x402.Header.decodePaymentResponse(v) as SettleResponse),
  };
}

/**
 * The receipts as the response headers that carry them.
 * @example receiptHeaders(NO_RECEIPT) // {}
 */
export function receiptHeaders(receipt: PaymentReceipt): Record<string, string> {
  const headers: Record<string, string> = {};
  if (receipt.mpp) headers[RECEIPT_HEADER] = Receipt.serialize(receipt.mpp);
  if (receipt.x402) headers[SETTLEMENT_HEADER] = x402.Header.encodePaymentResponse(receipt.x402 as Parameters<typeof x402.Header.encodePaymentResponse>[0]);
  return headers;
}

/** A resource's terms are one object for the life of the process (see challenge.ts), so each is encoded once. */
const encodedTerms = new WeakMap<PaymentRequired, string>();

/**
 * x402's PaymentRequired as its PAYMENT-REQUIRED header value.
 * @example response.headers.set('PAYMENT-REQUIRED', paymentRequiredHeader(offer.x402))
 */
export function paymentRequiredHeader(required: PaymentRequired): string {
  let header = encodedTerms.get(required);
  if (header === undefined) {
    header = x402.Header.encodePaymentRequired(required as Parameters<typeof x402.Header.encodePaymentRequired>[0]);
    encodedTerms.set(required, header);
  }
  return header;
}

/**
 * PAYMENT-REQUIRED read as x402's PaymentRequired.
 * @example decodePaymentRequired(headers.get('PAYMENT-REQUIRED')!).accepts[0].amount // '1000000'
 */
export function decodePaymentRequired(header: string): PaymentRequired {
  return x402.Header.decodePaymentRequired(header) as PaymentRequired;
}

function read<T>(value: string | undefined, decode: (value: string) => T): T | null {
  if (value === undefined) return null;
  try {
    return decode(value);
  } catch {
    return null;
  }
}
