// Pins down how the reference's CSV columns become POST /customers bodies, and that a bad row is
// refused with every problem named by column, under the row's platformCustomerId or row_<n>.
import { DomainError } from '@corridor/contracts';
import { CSV_CELL_MAX_CHARS, checkHeader, parseRow } from './csv-row';

const header = [
  'umaAddress',
  'platformCustomerId',
  'customerType',
  'fullName',
  'birthDate',
  'addressLine1',
  'addressLine2',
  'city',
  'state',
  'postalCode',
  'country',
  'email',
  'businessLegalName',
  'businessTaxId',
  'businessIncorporatedOn',
  'businessRegistrationNumber',
  'platformAccountId',
  'description',
];
const row = (values: Record<string, string>) => header.map((name) => values[name] ?? '');
const address = { addressLine1: '1 Main St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' };

describe('checkHeader', () => {
  it('accepts the reference columns in any order and a subset of the optional ones', () => {
    expect(() => checkHeader(header)).not.toThrow();
    expect(() => checkHeader(['customerType', 'platformCustomerId', 'umaAddress'])).not.toThrow();
  });

  it('names missing, unknown and repeated columns', () => {
    const refusal = (() => {
      try {
        checkHeader(['platformCustomerId', 'fulName', 'city', 'city']);
      } catch (error) {
        return error as DomainError;
      }
      throw new Error('accepted');
    })();
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal.status).toBe(400);
    expect(refusal.message).toContain('umaAddress, customerType');
    expect(refusal.message).toContain('"fulName"');
    expect(refusal.message).toContain('repeated column city');
    expect(refusal.details).toMatchObject({ missingColumns: ['umaAddress', 'customerType'], unknownColumns: ['fulName'] });
  });
});

describe('parseRow', () => {
  it('maps an individual row to the create body, adding the $ the reference example leaves out', () => {
    const parsed = parseRow(
      header,
      row({
        umaAddress: 'John.Doe@uma.domain.com',
        platformCustomerId: 'customer123',
        customerType: 'INDIVIDUAL',
        fullName: 'John Doe',
        birthDate: '1990-01-15',
        email: 'john@example.com',
        ...address,
        addressLine2: 'Apt 4',
        platformAccountId: 'acct-1',
      }),
      1,
    );
    expect(parsed).toEqual({
      ok: true,
      correlationId: 'customer123',
      body: {
        customerType: 'INDIVIDUAL',
        platformCustomerId: 'customer123',
        umaAddress: '$john.doe@uma.domain.com',
        fullName: 'John Doe',
        birthDate: '1990-01-15',
        email: 'john@example.com',
        address: { line1: '1 Main St', line2: 'Apt 4', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
      },
    });
  });

  it('maps a business row to businessInfo', () => {
    const parsed = parseRow(
      header,
      row({
        umaAddress: '$acme@uma.domain.com',
        platformCustomerId: 'biz456',
        customerType: 'BUSINESS',
        businessLegalName: 'Acme, Inc.',
        businessTaxId: '12-3456789',
        businessIncorporatedOn: '2015-06-01',
        businessRegistrationNumber: 'R-1',
        ...address,
      }),
      2,
    );
    expect(parsed).toMatchObject({
      ok: true,
      body: {
        customerType: 'BUSINESS',
        businessInfo: { legalName: 'Acme, Inc.', taxId: '12-3456789', incorporatedOn: '2015-06-01', registrationNumber: 'R-1' },
      },
    });
  });

  it('names every problem of a row by column', () => {
    const parsed = parseRow(
      header,
      row({
        umaAddress: 'not an address',
        platformCustomerId: 'c1',
        customerType: 'INDIVIDUAL',
        birthDate: '1990-02-30',
        ...address,
        country: 'USA',
        email: 'nope',
        businessTaxId: '1',
      }),
      7,
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.correlationId).toBe('c1');
    expect(parsed.error.code).toBe('INVALID_INPUT');
    expect((parsed.error.details as { problems: { column: string }[] }).problems.map((problem) => problem.column)).toEqual([
      'umaAddress',
      'country',
      'fullName',
      'birthDate',
      'email',
      'businessTaxId',
    ]);
    expect(parsed.error.message).toMatch(/^Row 7: /);
  });

  it('accepts a business row without businessTaxId and businessIncorporatedOn, which the reference does not require', () => {
    const parsed = parseRow(
      header,
      row({ umaAddress: '$a@b.com', platformCustomerId: 'b1', customerType: 'BUSINESS', businessLegalName: 'Acme', ...address }),
      3,
    );
    expect(parsed).toMatchObject({ ok: true, body: { customerType: 'BUSINESS', businessInfo: { legalName: 'Acme' } } });
    expect(parsed.ok && parsed.body.businessInfo).toEqual({ legalName: 'Acme' });
  });

  it('accepts a business row without a legal name as a business without businessInfo, unless other business cells need one', () => {
    const bare = parseRow(header, row({ umaAddress: '$a@b.com', platformCustomerId: 'b2', customerType: 'BUSINESS', ...address }), 4);
    expect(bare).toMatchObject({ ok: true, body: { customerType: 'BUSINESS' } });
    expect(bare.ok && 'businessInfo' in bare.body).toBe(false);
    const orphan = parseRow(
      header,
      row({ umaAddress: '$a@b.com', platformCustomerId: 'b3', customerType: 'BUSINESS', businessTaxId: '12-3', ...address }),
      5,
    );
    expect(orphan).toMatchObject({ ok: false, error: { message: 'Row 5: businessLegalName is required with businessTaxId.' } });
  });

  it('imports the example of the reference as it is written: short rows, no $, no legal name', () => {
    // The example of POST /customers/bulk/csv in grid-openapi.yaml: 12 columns named, rows of 10.
    const example = [
      'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,platformAccountId,' +
        'businessLegalName',
      'john.doe@uma.domain.com,customer123,INDIVIDUAL,John Doe,1990-01-15,123 Main St,San Francisco,CA,94105,US',
      'acme@uma.domain.com,biz456,BUSINESS,,,400 Commerce Way,Austin,TX,78701,US',
    ].map((line) => line.split(','));
    const exampleHeader = example[0]!;
    expect(() => checkHeader(exampleHeader)).not.toThrow();
    expect(parseRow(exampleHeader, example[1]!, 1)).toMatchObject({
      ok: true,
      body: { customerType: 'INDIVIDUAL', umaAddress: '$john.doe@uma.domain.com', fullName: 'John Doe' },
    });
    expect(parseRow(exampleHeader, example[2]!, 2)).toMatchObject({
      ok: true,
      body: { customerType: 'BUSINESS', umaAddress: '$acme@uma.domain.com', address: { line1: '400 Commerce Way' } },
    });
  });

  it('uses row_<n> when the row has no platformCustomerId, and refuses an unknown customerType', () => {
    const parsed = parseRow(header, row({ customerType: 'ROBOT' }), 9_999);
    expect(parsed).toMatchObject({ ok: false, error: { correlationId: 'row_9999', details: { row: 9_999 } } });
    if (!parsed.ok) expect(parsed.error.message).toContain('customerType must be INDIVIDUAL or BUSINESS');
  });

  it('reads the cells a short row leaves out as empty, and refuses a row longer than the header', () => {
    expect(parseRow(header, ['$a@b.com', 'c4'], 4)).toMatchObject({
      ok: false,
      error: { correlationId: 'c4', message: expect.stringContaining('customerType is required') },
    });
    expect(parseRow(header, [...row({ platformCustomerId: 'c5' }), 'extra'], 5)).toMatchObject({
      ok: false,
      error: { correlationId: 'c5', message: expect.stringContaining('has 19 fields where the header names only 18') },
    });
  });

  describe('hostile cells', () => {
    const individual = {
      umaAddress: '$hostile@uma.domain.com',
      platformCustomerId: 'hostile-1',
      customerType: 'INDIVIDUAL',
      fullName: 'Hostile',
      birthDate: '1990-01-15',
      ...address,
    };
    // The shape recheck found for the old email pattern: quadratic in the cell's length.
    const attackEmail = `a@${'.a'.repeat(15_000)}`;
    const patternInputs = (run: () => void): string[] => {
      const test = jest.spyOn(RegExp.prototype, 'test');
      const exec = jest.spyOn(RegExp.prototype, 'exec');
      try {
        run();
        return [...test.mock.calls, ...exec.mock.calls].map(([input]) => String(input));
      } finally {
        test.mockRestore();
        exec.mockRestore();
      }
    };

    it('refuses a 30,000-character email by its length before any pattern sees it, quoting at most 64 characters', () => {
      let parsed: ReturnType<typeof parseRow> | undefined;
      const inputs = patternInputs(() => (parsed = parseRow(header, row({ ...individual, email: attackEmail }), 3)));
      expect(inputs.filter((input) => input.length > 255)).toEqual([]);
      expect(parsed).toMatchObject({
        ok: false,
        error: {
          correlationId: 'hostile-1',
          details: {
            row: 3,
            problems: [{ column: 'email', message: `email is 30002 characters; a cell holds at most ${CSV_CELL_MAX_CHARS}` }],
          },
        },
      });
      expect(JSON.stringify(parsed).length).toBeLessThan(1_000);
    });

    it('runs no pattern on a cell longer than its column allows, and quotes a cut value', () => {
      const long = 'x'.repeat(300);
      let parsed: ReturnType<typeof parseRow> | undefined;
      const inputs = patternInputs(
        () =>
          (parsed = parseRow(
            header,
            row({ ...individual, email: `${long}@example.com`, umaAddress: `$${long}@uma.com`, country: long, birthDate: long }),
            4,
          )),
      );
      expect(inputs.filter((input) => input.length > 255)).toEqual([]);
      expect(parsed).toMatchObject({ ok: false });
      const messages = parsed && !parsed.ok ? parsed.error.message : '';
      expect(messages).toContain('email must be at most 254 characters');
      expect(messages).toContain('umaAddress must be at most 255 characters');
      expect(messages).toContain('country must be at most 255 characters');
      expect(messages).not.toContain(long);
    });

    it('still tells a mistyped email within the limit, quoting a long value cut to 64 characters', () => {
      const parsed = parseRow(header, row({ ...individual, email: `${'b'.repeat(100)}@nowhere` }), 5);
      expect(parsed).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining(`email must be an email address, got "${'b'.repeat(64)}"… (108 characters)`) },
      });
    });
  });
});
