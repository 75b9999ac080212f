// NATS message data of the customers service. Request bodies are the reference's
// CustomerCreateRequestOneOf / CustomerUpdateRequestOneOf after the gateway validated them;
// replies are the reference Customer wire object (IndividualCustomer | BusinessCustomer).

export type CustomerType = 'INDIVIDUAL' | 'BUSINESS';
export type KycStatus = 'UNVERIFIED' | 'PENDING' | 'APPROVED' | 'REJECTED';

export type AddressWire = {
  line1: string;
  line2?: string;
  city?: string;
  state?: string;
  postalCode: string;
  country: string;
};

export type BusinessInfoWire = {
  legalName: string;
  /**
   * Required by POST /customers; a CSV-imported business may lack both until
   * it is verified (the reference's BusinessInfoResponse makes them optional).
   */
  incorporatedOn?: string;
  taxId?: string;
  doingBusinessAs?: string;
  country?: string;
  registrationNumber?: string;
  entityType?: string;
  countriesOfOperation?: string[];
  businessType?: string;
  purposeOfAccount?: string;
  sourceOfFunds?: string;
  expectedMonthlyTransactionCount?: string;
  expectedMonthlyTransactionVolume?: string;
  expectedRecipientJurisdictions?: string[];
};

export type CreateCustomerData = {
  customerType: CustomerType;
  platformCustomerId?: string;
  region?: string;
  currencies?: string[];
  email?: string;
  umaAddress?: string;
  kycStatus?: KycStatus;
  kybStatus?: KycStatus;
  fullName?: string;
  birthDate?: string;
  nationality?: string;
  address?: AddressWire;
  businessInfo?: BusinessInfoWire;
};

export type UpdateCustomerData = {
  customerId: string;
  patch: Omit<CreateCustomerData, 'platformCustomerId' | 'region' | 'businessInfo'> & {
    businessInfo?: Partial<BusinessInfoWire>;
  };
};

/** asOf (a Corridor extension, decision 0039, GET only): the customer as it stood at that time, folded from its events. */
export type CustomerIdData = { customerId: string; asOf?: string };

export type ListCustomersData = {
  platformCustomerId?: string;
  customerType?: CustomerType;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  region?: string;
  currency?: string;
  umaAddress?: string;
  isIncludingDeleted?: boolean;
  limit: number;
  cursor?: string;
};

export type CustomerWire = {
  id: string;
  platformCustomerId: string;
  customerType: CustomerType;
  umaAddress: string;
  region?: string;
  currencies?: string[];
  email?: string;
  kycStatus?: KycStatus;
  kybStatus?: KycStatus;
  fullName?: string;
  birthDate?: string;
  nationality?: string;
  address?: AddressWire;
  businessInfo?: BusinessInfoWire;
  beneficialOwners?: unknown[];
  createdAt: string;
  updatedAt: string;
  isDeleted: boolean;
};
/** Reply: CustomerWire as of that stream position of the customer's stream (webhook payloads). */
export type RenderCustomerAtData = { customerId: string; streamPosition: number };
