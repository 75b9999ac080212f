import { DomainError, invalidInput } from '@corridor/contracts';
import type { StringRule } from './account-type-rules';

// Readers for one member of an untrusted object. Each names the member by its full dot path
// (accountInfo.beneficiary.fullName) because that path is what a client needs to fix the request.

export type Problem =
  | 'missing'
  | 'not_a_string'
  | 'not_an_object'
  | 'empty'
  | 'length'
  | 'pattern'
  | 'enum'
  | 'checksum'
  | 'exactly_one'
  | 'unknown_account_type'
  | 'currency_mismatch';

export type Members = Readonly<Record<string, unknown>>;

export const shapeError = (field: string, problem: Problem, message: string): DomainError =>
  invalidInput(`${field} ${message}`, { field, problem });

/** Check digits that do not add up mean a mistyped account, which the client must hear apart from a shape slip. */
export const checksumError = (field: string, message: string): DomainError =>
  new DomainError('INVALID_BANK_ACCOUNT', 'validation', `${field} ${message}`, { field, problem: 'checksum' });

export const isObject = (value: unknown): value is Members => typeof value === 'object' && value !== null && !Array.isArray(value);

export const readObject = (value: unknown, field: string): Members => {
  if (value === undefined || value === null) throw shapeError(field, 'missing', 'is required.');
  if (!isObject(value)) throw shapeError(field, 'not_an_object', 'must be an object.');
  return value;
};

/** Trims surrounding whitespace so that a pasted value is stored the way it will be compared. */
export const readOptionalString = (members: Members, name: string, path: string): string | undefined => {
  const value = members[name];
  if (value === undefined || value === null) return undefined;
  const field = `${path}.${name}`;
  if (typeof value !== 'string') throw shapeError(field, 'not_a_string', 'must be a string.');
  const trimmed = value.trim();
  if (trimmed === '') throw shapeError(field, 'empty', 'must not be empty.');
  return trimmed;
};

export const readString = (members: Members, name: string, path: string): string => {
  const value = readOptionalString(members, name, path);
  if (value === undefined) throw shapeError(`${path}.${name}`, 'missing', 'is required.');
  return value;
};

/** Applies a reference string rule; `expected` describes the format in words for the message. */
export const checkStringRule = (value: string, rule: StringRule, field: string, expected?: string): string => {
  if (rule.enum && !rule.enum.includes(value)) {
    throw shapeError(field, 'enum', `must be one of ${rule.enum.join(', ')}.`);
  }
  const tooShort = rule.minLength !== undefined && value.length < rule.minLength;
  const tooLong = rule.maxLength !== undefined && value.length > rule.maxLength;
  if (tooShort || tooLong) {
    throw shapeError(field, 'length', `must be ${expected ?? lengthWords(rule)}.`);
  }
  if (rule.pattern !== undefined && !new RegExp(rule.pattern).test(value)) {
    throw shapeError(field, 'pattern', `must be ${expected ?? `a string matching ${rule.pattern}`}.`);
  }
  return value;
};

const lengthWords = (rule: StringRule): string =>
  rule.minLength === rule.maxLength
    ? `exactly ${rule.minLength} characters long`
    : `between ${rule.minLength ?? 1} and ${rule.maxLength ?? 'any number of'} characters long`;

/** Matches a format given as a RegExp, for the rules the reference leaves unstated. */
export const checkFormat = (value: string, pattern: RegExp, field: string, expected: string): string => {
  if (!pattern.test(value)) throw shapeError(field, 'pattern', `must be ${expected}.`);
  return value;
};
