// The shape of one row of the generated table: what the reference schema says about an accountType,
// reduced to the checks a validator needs (required members, string formats, beneficiary variants).

export type StringRule = Readonly<{
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  enum?: readonly string[];
}>;

export type BeneficiaryRules = Readonly<{
  required: readonly string[];
  fields: readonly string[];
  addressRequired: readonly string[];
}>;

export type AccountTypeRules = Readonly<{
  required: readonly string[];
  strings: Readonly<Record<string, StringRule>>;
  beneficiaryRequired: boolean;
  beneficiary?: Readonly<Record<string, BeneficiaryRules>>;
}>;
