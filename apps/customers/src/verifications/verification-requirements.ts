import type { BeneficialOwnerRole, DocumentType, VerificationErrorType, VerificationErrorWire } from '@corridor/contracts';
import type { BeneficialOwner } from '../beneficial-owners/beneficial-owner';
import type { ExistingCustomer } from '../customers/customer';

// What must be on file before a customer can be verified, derived from the reference's
// POST /verifications ("What to collect for KYB") and its VerificationError types:
//
// - Individuals (KYC): full name, date of birth (an adult), nationality and address. The
//   reference names required documents only for KYB, so an individual needs none.
// - Businesses (KYB): legal name, tax id, incorporation date, principal address and countries of
//   operation; beneficial owners, among them one control person, with every owner of 25% or more
//   marked UBO, a US owner identified by SSN or ITIN and a non-US owner by an identity document;
//   and the company's documents: legal presence, ownership structure and proof of address.
//
// `documents` are the ones uploaded with POST /documents for the customer or its owners, as
// recorded in the customer's stream (decision 0011); a document counts for the requirement its
// type is accepted for, whoever of the business's people it was uploaded for is named by holder.

export type DocumentOnFile = { documentHolder: string; documentType: DocumentType };

const ADULT_AGE_YEARS = 18;
/** An owner at or above this share is an ultimate beneficial owner (the reference's 25%). */
export const UBO_THRESHOLD_PERCENT = 25;
const controlRoles: ReadonlySet<BeneficialOwnerRole> = new Set([
  'CONTROL_PERSON',
  'DIRECTOR',
  'COMPANY_OFFICER',
  'GENERAL_PARTNER',
  'TRUSTEE',
]);

export const documentRequirements = {
  MISSING_IDENTITY_DOCUMENT: ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'],
  MISSING_LEGAL_PRESENCE_DOCUMENT: [
    'CERTIFICATE_OF_INCORPORATION',
    'ARTICLES_OF_INCORPORATION',
    'ARTICLES_OF_ASSOCIATION',
    'STATE_REGISTRY_EXCERPT',
  ],
  MISSING_OWNERSHIP_STRUCTURE_DOCUMENT: ['SHAREHOLDER_REGISTER', 'TRUST_AGREEMENT', 'PARTNERSHIP_AGREEMENT'],
  MISSING_PROOF_OF_ADDRESS_DOCUMENT: ['UTILITY_BILL', 'RENT_OR_LEASE_AGREEMENT', 'ELECTRICITY_BILL', 'BANK_STATEMENT', 'TAX_RETURN'],
} as const satisfies Partial<Record<VerificationErrorType, readonly DocumentType[]>>;
type DocumentRequirement = keyof typeof documentRequirements;

const documentReasons: Readonly<Record<DocumentRequirement, string>> = {
  MISSING_IDENTITY_DOCUMENT:
    'An identity document (passport, driver’s license or national id) is required for a person who is not a US taxpayer',
  MISSING_LEGAL_PRESENCE_DOCUMENT:
    'A company formation document (certificate or articles of incorporation, articles of association or a state registry excerpt) is ' +
    'required',
  MISSING_OWNERSHIP_STRUCTURE_DOCUMENT:
    'A document showing the ownership structure (shareholder register, trust or partnership agreement) is required',
  MISSING_PROOF_OF_ADDRESS_DOCUMENT: 'A proof of the business address dated within the last 3 months is required',
};

const missingField = (resourceId: string, field: string, reason: string): VerificationErrorWire => ({
  resourceId,
  type: 'MISSING_FIELD',
  field,
  reason,
});
const invalidField = (resourceId: string, field: string, reason: string): VerificationErrorWire => ({
  resourceId,
  type: 'INVALID_FIELD',
  field,
  reason,
});

const missingDocument = (
  resourceId: string,
  requirement: DocumentRequirement,
  documents: readonly DocumentOnFile[],
): VerificationErrorWire[] => {
  const accepted: readonly DocumentType[] = documentRequirements[requirement];
  const onFile = documents.some((document) => document.documentHolder === resourceId && accepted.includes(document.documentType));
  return onFile ? [] : [{ resourceId, type: requirement, acceptedDocumentTypes: [...accepted], reason: documentReasons[requirement] }];
};

/** Whole years between a YYYY-MM-DD birth date and now, in UTC. */
export const ageInYears = (birthDate: string, now: Date): number => {
  const [year, month, day] = birthDate.split('-').map(Number) as [number, number, number];
  const birthdayPassed = now.getUTCMonth() + 1 > month || (now.getUTCMonth() + 1 === month && now.getUTCDate() >= day);
  return now.getUTCFullYear() - year - (birthdayPassed ? 0 : 1);
};

const addressErrors = (
  resourceId: string,
  prefix: string,
  address: { line1?: string; postalCode?: string; country?: string } | undefined,
  whose: string,
): VerificationErrorWire[] =>
  (['line1', 'postalCode', 'country'] as const)
    .filter((part) => !address?.[part])
    .map((part) =>
      missingField(
        resourceId,
        `${prefix}.${part}`,
        `${whose} address ${part === 'line1' ? 'line 1' : part === 'postalCode' ? 'postal code' : 'country'} is required`,
      ),
    );

const individualErrors = (customer: ExistingCustomer, now: Date): VerificationErrorWire[] => {
  const id = customer.customerId;
  const { fullName, birthDate, nationality, address } = customer.profile;
  const errors: VerificationErrorWire[] = [];
  if (!fullName) errors.push(missingField(id, 'customer.fullName', 'Full name is required'));
  if (!birthDate) errors.push(missingField(id, 'customer.birthDate', 'Date of birth is required'));
  else if (ageInYears(birthDate, now) < ADULT_AGE_YEARS)
    errors.push(invalidField(id, 'customer.birthDate', `The customer must be at least ${ADULT_AGE_YEARS} years old`));
  if (!nationality) errors.push(missingField(id, 'customer.nationality', 'Nationality is required'));
  errors.push(...addressErrors(id, 'customer.address', address, 'Residential'));
  return errors;
};

const ownerErrors = (owner: BeneficialOwner, now: Date, documents: readonly DocumentOnFile[]): VerificationErrorWire[] => {
  const id = owner.beneficialOwnerId;
  const { personalInfo } = owner;
  const errors: VerificationErrorWire[] = [];
  if (ageInYears(personalInfo.birthDate, now) < ADULT_AGE_YEARS)
    errors.push(invalidField(id, 'personalInfo.birthDate', `A beneficial owner must be at least ${ADULT_AGE_YEARS} years old`));
  if (owner.ownershipPercentage >= UBO_THRESHOLD_PERCENT && !owner.roles.includes('UBO')) {
    errors.push(invalidField(id, 'roles', `An owner of ${UBO_THRESHOLD_PERCENT}% or more must have the role UBO`));
  }
  if (personalInfo.nationality === 'US') {
    if (personalInfo.idType !== 'SSN' && personalInfo.idType !== 'ITIN')
      errors.push(invalidField(id, 'personalInfo.idType', 'A US person is identified by an SSN or an ITIN'));
  } else {
    errors.push(...missingDocument(id, 'MISSING_IDENTITY_DOCUMENT', documents));
  }
  if (owner.kycStatus === 'REJECTED') {
    errors.push({
      resourceId: id,
      type: 'APPLICANT_REJECTED',
      reason: 'This person did not pass KYC; correct their details with PATCH /beneficial-owners/{id} to screen them again',
    });
  }
  return errors;
};

const businessErrors = (customer: ExistingCustomer, now: Date, documents: readonly DocumentOnFile[]): VerificationErrorWire[] => {
  const id = customer.customerId;
  const { businessInfo, address } = customer.profile;
  const errors: VerificationErrorWire[] = [];
  // A business imported by CSV may have no businessInfo, or one without taxId and incorporatedOn.
  for (const field of ['legalName', 'taxId', 'incorporatedOn'] as const) {
    if (!businessInfo?.[field]) errors.push(missingField(id, `customer.businessInfo.${field}`, `Business ${field} is required`));
  }
  if (!businessInfo?.countriesOfOperation?.length)
    errors.push(missingField(id, 'customer.businessInfo.countriesOfOperation', 'The countries the business operates in are required'));
  errors.push(...addressErrors(id, 'customer.address', address, 'Business'));

  const owners = customer.beneficialOwners;
  if (owners.length === 0) {
    errors.push({
      resourceId: id,
      type: 'MISSING_BENEFICIAL_OWNER',
      reason: `Add every person who owns ${UBO_THRESHOLD_PERCENT}% or more and one control person with POST /beneficial-owners`,
    });
  } else if (!owners.some((owner) => owner.roles.some((role) => controlRoles.has(role)))) {
    errors.push({
      resourceId: id,
      type: 'MISSING_BENEFICIAL_OWNER',
      reason: 'Add one control person (a person with a role of CONTROL_PERSON, DIRECTOR, COMPANY_OFFICER, GENERAL_PARTNER or TRUSTEE)',
    });
  }
  errors.push(...owners.flatMap((owner) => ownerErrors(owner, now, documents)));

  for (const requirement of [
    'MISSING_LEGAL_PRESENCE_DOCUMENT',
    'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
    'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
  ] as const) {
    errors.push(...missingDocument(id, requirement, documents));
  }
  return errors;
};

/** Every item that keeps the customer from being verified; empty when it can go to the provider. */
export const verificationErrors = (customer: ExistingCustomer, now: Date, documents: readonly DocumentOnFile[]): VerificationErrorWire[] =>
  customer.customerType === 'INDIVIDUAL' ? individualErrors(customer, now) : businessErrors(customer, now, documents);
