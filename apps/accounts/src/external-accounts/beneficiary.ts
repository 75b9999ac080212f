import type { BeneficiaryRules } from './account-type-rules';
import type { Members } from './fields';
import { readObject, readOptionalString, shapeError } from './fields';

export type BeneficiaryAddress = Readonly<{
  line1: string;
  line2?: string;
  city?: string;
  state?: string;
  postalCode: string;
  country: string;
}>;

type SharedBeneficiaryMembers = {
  email?: string;
  phoneNumber?: string;
  countryOfResidence?: string;
  address?: BeneficiaryAddress;
};

export type IndividualBeneficiary = Readonly<
  SharedBeneficiaryMembers & { beneficiaryType: 'INDIVIDUAL'; fullName: string; birthDate?: string; nationality?: string }
>;

export type BusinessBeneficiary = Readonly<
  SharedBeneficiaryMembers & { beneficiaryType: 'BUSINESS'; legalName: string; registrationNumber?: string; taxId?: string }
>;

export type Beneficiary = IndividualBeneficiary | BusinessBeneficiary;

const addressMembers = ['line1', 'line2', 'city', 'state', 'postalCode', 'country'] as const;

/**
 * Validates a beneficiary against the variants its accountType allows. Which members are required
 * differs by currency (AED wants an address, EUR a country of residence), so the rules come from
 * the generated table rather than from one fixed shape.
 */
export const validateBeneficiary = (value: unknown, variants: Readonly<Record<string, BeneficiaryRules>>, path: string): Beneficiary => {
  const members = readObject(value, path);
  const accepted = Object.keys(variants);
  const beneficiaryType = readOptionalString(members, 'beneficiaryType', path);
  if (beneficiaryType === undefined) {
    throw shapeError(`${path}.beneficiaryType`, 'missing', `is required: one of ${accepted.join(', ')}.`);
  }
  const rules = variants[beneficiaryType];
  if (rules === undefined) {
    throw shapeError(`${path}.beneficiaryType`, 'enum', `must be one of ${accepted.join(', ')}.`);
  }
  const beneficiary: Record<string, unknown> = { beneficiaryType };
  for (const name of rules.fields) {
    const member = readOptionalString(members, name, path);
    if (member !== undefined) beneficiary[name] = member;
  }
  const address = readAddress(members, rules, path);
  if (address !== undefined) beneficiary['address'] = address;
  for (const name of rules.required) {
    if (beneficiary[name] === undefined) {
      throw shapeError(
        `${path}.${name}`,
        'missing',
        `is required for ${beneficiaryType === 'INDIVIDUAL' ? 'an individual' : 'a business'} beneficiary.`,
      );
    }
  }
  // The loop above proved the members the chosen variant requires, which is what the union promises.
  return beneficiary as Beneficiary;
};

const readAddress = (members: Members, rules: BeneficiaryRules, path: string): BeneficiaryAddress | undefined => {
  if (members['address'] === undefined || members['address'] === null) return undefined;
  const addressPath = `${path}.address`;
  const raw = readObject(members['address'], addressPath);
  const address: Record<string, string> = {};
  for (const name of addressMembers) {
    const member = readOptionalString(raw, name, addressPath);
    if (member !== undefined) address[name] = member;
  }
  for (const name of rules.addressRequired) {
    if (address[name] === undefined) throw shapeError(`${addressPath}.${name}`, 'missing', 'is required.');
  }
  return address as BeneficiaryAddress;
};
