// A check's sentences on a page: the names a developer types and the addresses are set as code, English is not.
import { describe, expect, it } from 'vitest';
import { proseParts } from '@/components/report-view/Prose';

const typed = (text: string) => proseParts(text).filter((p) => p.kind === 'typed').map((p) => p.text);

describe('proseParts', () => {
  it('marks API members, events, contract functions and dotted names; leaves the words between them whole', () => {
    expect(proseParts('Not asked for: the request did not set paidRoundTrip.')).toEqual([
      { text: 'Not asked for: the request did not set ' },
      { text: 'paidRoundTrip', kind: 'typed' },
      { text: '.' },
    ]);
    expect(typed('after stripe trigger payment_intent.succeeded was acted on once')).toEqual(['payment_intent.succeeded']);
    expect(typed('EIP-3009 transferWithAuthorization or Permit2 in x402 exact on EVM')).toEqual(['transferWithAuthorization']);
    expect(typed('full points (site.llms-txt scores its absence); meta.description, canonical.valid and social.og')).toEqual([
      'site.llms-txt',
      'meta.description',
      'canonical.valid',
      'social.og',
    ]);
    expect(typed('Serve /llms.txt as text/markdown')).toEqual(['llms.txt']);
  });

  it('leaves English alone: abbreviations, hyphenated words, capitalised names, versions', () => {
    expect(typed('e.g. a well-known, one-line WebSite or JavaScript page, i.e. version 4.0.0 of Node.js')).toEqual([]);
  });

  it('keeps an address whole, as an address, even where it holds dotted or camelCase parts', () => {
    expect(proseParts('See https://site.test/docs/payTo.html, then pay 0x00000000000000000000000000000000000000aB.')).toEqual([
      { text: 'See ' },
      { text: 'https://site.test/docs/payTo.html', kind: 'address' },
      { text: ', then pay ' },
      { text: '0x00000000000000000000000000000000000000aB', kind: 'address' },
      { text: '.' },
    ]);
  });

  it('marks a vocabulary\'s hyphenated names only when given, and only whole', () => {
    expect(typed('never makes the verdict not-ready')).toEqual([]);
    expect(proseParts('never makes the verdict not-ready, and not-ready-ish is no name', ['not-ready']).filter((p) => p.kind).map((p) => p.text)).toEqual(['not-ready']);
  });
});
