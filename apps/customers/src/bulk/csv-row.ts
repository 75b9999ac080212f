import {
  type BulkImportErrorWire,
  type CreateCustomerData,
  EMAIL_ADDRESS_MAX_LENGTH,
  invalidInput,
  isEmailAddress,
} from '@corridor/contracts';

// The reference's CSV columns and how one row becomes the body of POST /customers. The gateway
// validates that body with class-validator DTOs; a row never passes through the gateway, so the
// same rules are checked here, and a row that breaks one becomes a row error naming the column.

const required = ['umaAddress', 'platformCustomerId', 'customerType'] as const;
const addressColumns = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'] as const;
const individualColumns = ['fullName', 'birthDate', 'email'] as const;
// businessIncorporatedOn is ours (the reference has no such column); it and businessTaxId are
// optional, as in the reference's column list: a business imported without them is created, and
// POST /verifications lists them in its errors until they are given with PATCH /customers/{id}.
const businessColumns = ['businessLegalName', 'businessRegistrationNumber', 'businessTaxId', 'businessIncorporatedOn'] as const;
const ignoredColumns = ['platformAccountId', 'description'] as const;
export const csvColumns: readonly string[] = [...required, ...individualColumns, ...addressColumns, ...businessColumns, ...ignoredColumns];

// Hostile files are expected (docs/decisions/0024): every pattern here is linear (scripts/redos.spec.ts),
// and none runs on a cell longer than its column allows, nor on any cell over CSV_CELL_MAX_CHARS.
const COUNTRY_CODE = /^[A-Z]{2}$/;
const UMA_ADDRESS = /^\$[a-z0-9._-]{1,64}@[a-z0-9.-]{1,190}\.[a-z]{2,}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** No column of the reference holds more; a longer cell refuses its row before any other check runs. */
export const CSV_CELL_MAX_CHARS = 1_024;
/** How much of a refused value a row error quotes: enough to find it in the file, never the whole cell. */
const QUOTED_CHARS_MAX = 64;

/** A value as an error message quotes it, cut to QUOTED_CHARS_MAX characters with its full length named. */
export const quoted = (value: string): string =>
  value.length <= QUOTED_CHARS_MAX
    ? JSON.stringify(value)
    : `${JSON.stringify(value.slice(0, QUOTED_CHARS_MAX))}… (${value.length} characters)`;

/** Refuses a header the rows cannot be read by: a missing required column, an unknown or repeated one. */
export const checkHeader = (header: readonly string[]): void => {
  const names = header.map((name) => name.trim());
  const missing = required.filter((name) => !names.includes(name));
  const unknown = names.filter((name) => !csvColumns.includes(name));
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  const problems = [
    ...(missing.length > 0 ? [`missing required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`unknown column${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).map(quoted).join(', ')}`] : []),
    ...(repeated.length > 0 ? [`repeated column${repeated.length > 1 ? 's' : ''} ${[...new Set(repeated)].join(', ')}`] : []),
  ];
  if (problems.length > 0) {
    throw invalidInput(
      `The CSV header has ${problems.join('; ')}. The first line must name the columns, among: ${csvColumns.join(', ')}.`,
      {
        field: 'file',
        ...(missing.length > 0 ? { missingColumns: missing } : {}),
        ...(unknown.length > 0 ? { unknownColumns: unknown.slice(0, 10).map((name) => name.slice(0, QUOTED_CHARS_MAX)) } : {}),
      },
    );
  }
};

const isCalendarDate = (value: string): boolean => {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/** The row's cells over CSV_CELL_MAX_CHARS, each as a problem naming its column and length. */
const oversizedCells = (header: readonly string[], fields: readonly string[]): { column: string; message: string }[] =>
  fields.flatMap((field, index) => {
    if (field.length <= CSV_CELL_MAX_CHARS) return [];
    const column = header[index] ?? `field ${index + 1}`;
    return [{ column, message: `${column} is ${field.length} characters; a cell holds at most ${CSV_CELL_MAX_CHARS}` }];
  });

export type ParsedRow = { ok: true; correlationId: string; body: CreateCustomerData } | { ok: false; error: BulkImportErrorWire };

/**
 * One data row (`rowNumber` counts data rows from 1) against the header: the create body, or the
 * row's error with every problem found. The correlation id is the row's platformCustomerId, or
 * `row_<n>` when the row has none.
 */
type Problem = { column: string; message: string };

/** Reads one row's cells by column name, collecting every problem instead of stopping at the first. */
const rowReader = (header: readonly string[], fields: readonly string[]) => {
  const problems: Problem[] = [];
  const cell = (name: string): string | undefined => {
    const index = header.indexOf(name);
    const value = index >= 0 ? fields[index]?.trim() : undefined;
    return value === undefined || value === '' ? undefined : value;
  };
  const text = (name: string, { needed, max = 255 }: { needed: boolean; max?: number }): string | undefined => {
    const value = cell(name);
    if (value === undefined) {
      if (needed) problems.push({ column: name, message: `${name} is required` });
    } else if (value.length > max) problems.push({ column: name, message: `${name} must be at most ${max} characters` });
    return value;
  };
  /** A text cell that must also pass `test`, which runs only on a value within the column's length. */
  const matching = (name: string, needed: boolean, test: (value: string) => boolean, expected: string, max = 255): string | undefined => {
    const value = text(name, { needed, max });
    if (value !== undefined && value.length <= max && !test(value))
      problems.push({ column: name, message: `${name} must be ${expected}, got ${quoted(value)}` });
    return value;
  };
  /** Cells of the other customer type's columns are refused, not dropped in silence. */
  const refuseColumns = (columns: readonly string[], belongsTo: string) => {
    for (const column of columns) if (cell(column) !== undefined) problems.push({ column, message: `${column} is for ${belongsTo} rows` });
  };
  return { problems, cell, text, matching, refuseColumns };
};

type RowReader = ReturnType<typeof rowReader>;

export const parseRow = (header: readonly string[], fields: readonly string[], rowNumber: number): ParsedRow => {
  const reader = rowReader(header, fields);
  const { problems, cell, text, matching } = reader;
  const platformCustomerId = cell('platformCustomerId');
  const correlationId = platformCustomerId ?? `row_${rowNumber}`;
  const refuse = (problems: { column?: string; message: string }[]): ParsedRow => ({
    ok: false,
    error: {
      correlationId,
      code: 'INVALID_INPUT',
      message: `Row ${rowNumber}: ${problems.map((problem) => problem.message).join('; ')}.`,
      details: { row: rowNumber, problems },
    },
  });
  // A row may stop before the header's last columns (the reference's own example does): the cells
  // it leaves out are empty. More fields than columns cannot be placed, so such a row is refused.
  if (fields.length > header.length) {
    return refuse([{ message: `has ${fields.length} fields where the header names only ${header.length}` }]);
  }
  // Checked before anything reads a cell: no pattern, trim or lookup ever sees an oversized one.
  const oversized = oversizedCells(header, fields);
  if (oversized.length > 0) return refuse(oversized);

  text('platformCustomerId', { needed: true });
  // The reference's own example omits the leading '$'; UMA addresses are case-insensitive.
  const isUmaAddress = (value: string) => UMA_ADDRESS.test((value.startsWith('$') ? value : `$${value}`).toLowerCase());
  const rawUma = matching('umaAddress', true, isUmaAddress, 'an address like $name@domain.tld');
  const umaAddress = rawUma === undefined ? undefined : (rawUma.startsWith('$') ? rawUma : `$${rawUma}`).toLowerCase();
  const customerType = cell('customerType');
  if (customerType !== 'INDIVIDUAL' && customerType !== 'BUSINESS') {
    problems.push({
      column: 'customerType',
      message:
        customerType === undefined
          ? 'customerType is required (INDIVIDUAL or BUSINESS)'
          : `customerType must be INDIVIDUAL or BUSINESS, got ${quoted(customerType)}`,
    });
    return refuse(problems);
  }
  const common = { platformCustomerId: platformCustomerId ?? '', umaAddress: umaAddress ?? '', address: readAddress(reader) };
  const body = customerType === 'INDIVIDUAL' ? individualBody(reader, common) : businessBody(reader, common);
  if (problems.length > 0) return refuse(problems);
  return { ok: true, correlationId, body };
};

type CommonCells = { platformCustomerId: string; umaAddress: string; address: CreateCustomerData['address'] };

const readAddress = ({ text, matching }: RowReader): CommonCells['address'] => {
  const line1 = text('addressLine1', { needed: true });
  const line2 = text('addressLine2', { needed: false });
  const city = text('city', { needed: true });
  const state = text('state', { needed: true });
  const postalCode = text('postalCode', { needed: true, max: 32 });
  const country = matching('country', true, (value) => COUNTRY_CODE.test(value), 'an ISO 3166-1 alpha-2 country code such as US');
  return {
    line1: line1 ?? '',
    ...(line2 ? { line2 } : {}),
    ...(city ? { city } : {}),
    ...(state ? { state } : {}),
    postalCode: postalCode ?? '',
    country: country ?? '',
  };
};

const individualBody = ({ text, matching, refuseColumns }: RowReader, common: CommonCells): CreateCustomerData => {
  const fullName = text('fullName', { needed: true });
  const birthDate = matching('birthDate', true, isCalendarDate, 'a calendar date in the form YYYY-MM-DD');
  const email = matching('email', false, isEmailAddress, 'an email address', EMAIL_ADDRESS_MAX_LENGTH);
  refuseColumns(businessColumns, 'BUSINESS');
  return {
    customerType: 'INDIVIDUAL',
    platformCustomerId: common.platformCustomerId,
    umaAddress: common.umaAddress,
    ...(fullName ? { fullName } : {}),
    ...(birthDate ? { birthDate } : {}),
    ...(email ? { email } : {}),
    address: common.address,
  };
};

const businessBody = ({ problems, cell, text, matching, refuseColumns }: RowReader, common: CommonCells): CreateCustomerData => {
  // Like POST /customers, which takes a business without businessInfo: the reference's example
  // business row has no legal name. businessInfo needs one, so the other business cells need it too.
  const legalName = text('businessLegalName', { needed: false });
  const taxId = text('businessTaxId', { needed: false, max: 64 });
  const incorporatedOn = matching('businessIncorporatedOn', false, isCalendarDate, 'a calendar date in the form YYYY-MM-DD');
  const registrationNumber = text('businessRegistrationNumber', { needed: false });
  if (legalName === undefined) {
    const given = (['businessTaxId', 'businessIncorporatedOn', 'businessRegistrationNumber'] as const).filter(
      (column) => cell(column) !== undefined,
    );
    if (given.length > 0) problems.push({ column: 'businessLegalName', message: `businessLegalName is required with ${given.join(', ')}` });
  }
  refuseColumns(individualColumns, 'INDIVIDUAL');
  const businessInfo =
    legalName === undefined
      ? undefined
      : {
          legalName,
          ...(taxId ? { taxId } : {}),
          ...(incorporatedOn ? { incorporatedOn } : {}),
          ...(registrationNumber ? { registrationNumber } : {}),
        };
  return {
    customerType: 'BUSINESS',
    platformCustomerId: common.platformCustomerId,
    umaAddress: common.umaAddress,
    address: common.address,
    ...(businessInfo ? { businessInfo } : {}),
  };
};
