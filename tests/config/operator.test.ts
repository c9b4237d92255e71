import { describe, expect, it } from 'vitest';
import { OPERATOR_NOT_SET, operatorOf, parseConfig } from '@/lib/config';
import { longDate, POLICY_EFFECTIVE } from '@/lib/site/legal';

// The legal pages name who operates the instance from OPERATOR_NAME and OPERATOR_ADDRESS; unset, they say so.

describe('operatorOf', () => {
  it('names the configured operator and address, trimmed', () => {
    const config = parseConfig({ OPERATOR_NAME: '  Example Checks Ltd ', OPERATOR_ADDRESS: '1 Example Street, Example City' });
    expect(operatorOf(config)).toEqual({ name: 'Example Checks Ltd', nameSet: true, address: '1 Example Street, Example City', addressSet: true });
  });

  it('says plainly that each is not set when unset or blank, never an invented company', () => {
    expect(operatorOf(parseConfig({}))).toEqual({ name: OPERATOR_NOT_SET.name, nameSet: false, address: OPERATOR_NOT_SET.address, addressSet: false });
    expect(operatorOf(parseConfig({ OPERATOR_NAME: '   ', OPERATOR_ADDRESS: '' }))).toMatchObject({ nameSet: false, addressSet: false });
    expect(OPERATOR_NOT_SET).toEqual({
      name: 'Not named: the operator of this instance has not given its name.',
      address: 'Not given: the operator of this instance has not given a postal address.',
    });
  });

  it('refuses a name or address too long to be one', () => {
    expect(() => parseConfig({ OPERATOR_NAME: 'x'.repeat(201) })).toThrow(/OPERATOR_NAME/);
    expect(() => parseConfig({ OPERATOR_ADDRESS: 'x'.repeat(401) })).toThrow(/OPERATOR_ADDRESS/);
  });
});

describe('the effective dates of the legal pages', () => {
  it('are real dates, written out the same on any server', () => {
    expect(Object.keys(POLICY_EFFECTIVE).sort()).toEqual(['privacy', 'refunds', 'terms']);
    for (const date of Object.values(POLICY_EFFECTIVE)) expect(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10)).toBe(date);
    expect(longDate('2026-11-25')).toBe('25 November 2026');
    expect(longDate('2027-01-05')).toBe('5 January 2027');
  });
});
