import { type CustomerWire, DomainError, invalidInput } from '@corridor/contracts';

// The payer data a receiving institution needs before it accepts a payment (the reference's
// requiredPayerDataFields, which a receiver lookup reports and senderCustomerInfo must satisfy).
// The sandbox answers per receiving currency from this table; a receiver lookup reports the same
// fields as mandatory (withCorridorPayerFields), and a quote citing a lookup must also satisfy
// what the receiver itself made mandatory. A payer field is satisfied by senderCustomerInfo or by
// what the sending customer's profile already holds.

export const customerInfoFieldNames = [
  'FULL_NAME',
  'BIRTH_DATE',
  'NATIONALITY',
  'PHONE_NUMBER',
  'EMAIL',
  'POSTAL_ADDRESS',
  'TAX_ID',
  'REGISTRATION_NUMBER',
  'USER_TYPE',
  'COUNTRY_OF_RESIDENCE',
  'ACCOUNT_IDENTIFIER',
  'FI_LEGAL_ENTITY_NAME',
  'FI_ADDRESS',
  'PURPOSE_OF_PAYMENT',
  'ULTIMATE_INSTITUTION_COUNTRY',
  'IDENTIFIER',
  'BUSINESS_TYPE',
  'COMPANY_LEGAL_NAME',
  'ID_TYPE',
  'ID_NUMBER',
] as const;
export type CustomerInfoField = (typeof customerInfoFieldNames)[number];

/**
 * Sandbox receiving institutions: every payout into another currency needs the payer's name; the
 * INR, NGN and PHP corridors also need birth date and nationality (the stricter remittance
 * corridors). A same-currency payment (e.g. to the sender's own bank account) needs nothing.
 */
export const corridorPayerFields = (receivingCurrency: string): CustomerInfoField[] =>
  receivingCurrency === 'INR' || receivingCurrency === 'NGN' || receivingCurrency === 'PHP'
    ? ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY']
    : ['FULL_NAME'];

export const sandboxRequiredPayerFields = (sendingCurrency: string, receivingCurrency: string): CustomerInfoField[] =>
  sendingCurrency === receivingCurrency ? [] : corridorPayerFields(receivingCurrency);

const isCustomerInfoField = (name: string): name is CustomerInfoField => (customerInfoFieldNames as readonly string[]).includes(name);

/**
 * A receiver's payer data fields with those its currencies' corridors
 * require made mandatory: a lookup states everything a quote will check.
 */
export const withCorridorPayerFields = (
  fields: readonly { name: string; mandatory: boolean }[],
  currencies: readonly string[],
): { name: string; mandatory: boolean }[] => {
  const required = new Set<string>(currencies.flatMap(corridorPayerFields));
  const merged = fields.map((field) => (required.has(field.name) ? { ...field, mandatory: true } : field));
  for (const name of required) if (!merged.some((field) => field.name === name)) merged.push({ name, mandatory: true });
  return merged;
};

/**
 * What a quote must know about its payer: the corridor's fields (for a
 * customer's payment) and what a cited lookup's receiver made mandatory.
 */
export const requiredPayerFields = (
  corridor: CustomerInfoField[],
  lookupFields: readonly { name: string; mandatory: boolean }[] = [],
): CustomerInfoField[] => [
  ...new Set([
    ...corridor,
    ...lookupFields
      .filter((field) => field.mandatory)
      .map((field) => field.name)
      .filter(isCustomerInfoField),
  ]),
];

/** What the sending customer's profile already says, by payer field. */
export const profileFields = (customer: CustomerWire): Partial<Record<CustomerInfoField, unknown>> => ({
  FULL_NAME: customer.fullName ?? customer.businessInfo?.legalName,
  COMPANY_LEGAL_NAME: customer.businessInfo?.legalName,
  BIRTH_DATE: customer.birthDate,
  NATIONALITY: customer.nationality,
  EMAIL: customer.email,
  POSTAL_ADDRESS: customer.address,
  TAX_ID: customer.businessInfo?.taxId,
  REGISTRATION_NUMBER: customer.businessInfo?.registrationNumber,
  USER_TYPE: customer.customerType,
  BUSINESS_TYPE: customer.businessInfo?.businessType,
});

const present = (value: unknown): boolean =>
  (typeof value === 'string' && value.trim().length > 0) || (typeof value === 'object' && value !== null && Object.keys(value).length > 0);

/** senderCustomerInfo's own shape: keys are CustomerInfoFieldName values, values text (or an object, for an address). */
export const checkSenderCustomerInfo = (info: Record<string, unknown> | undefined): void => {
  for (const [key, value] of Object.entries(info ?? {})) {
    const field = `senderCustomerInfo.${key}`;
    if (!(customerInfoFieldNames as readonly string[]).includes(key))
      throw invalidInput(`${field} is not a payer field; the keys are ${customerInfoFieldNames.join(', ')}.`, { field });
    if (!present(value) || (typeof value !== 'string' && key !== 'POSTAL_ADDRESS'))
      throw invalidInput(`${field} must be non-empty text.`, { field });
  }
};

/**
 * Refuses a quote whose payer leaves a required field unanswered: 400 MISSING_MANDATORY_USER_INFO
 * listing every missing field, so one retry with senderCustomerInfo can fix them all. A platform's
 * own payment has no customer profile; it is not checked (the platform is the known payer).
 */
export const checkPayerFields = (
  required: CustomerInfoField[],
  customer: CustomerWire | null,
  info: Record<string, unknown> | undefined,
): void => {
  if (required.length === 0) return;
  const known = customer === null ? {} : profileFields(customer);
  const missing = required.filter((name) => !present(info?.[name]) && !present(known[name]));
  if (missing.length === 0) return;
  throw new DomainError(
    'MISSING_MANDATORY_USER_INFO',
    'validation',
    `The receiving institution needs ${missing.join(', ')} about the payer, and neither the customer's profile nor senderCustomerInfo ` +
      (`has ${missing.length === 1 ? 'it' : 'them'}. Add ${missing.map((name) => `senderCustomerInfo.${name}`).join(', ')} (or update ` +
        `the customer) and quote again.`),
    { field: 'senderCustomerInfo', missing, required },
  );
};
