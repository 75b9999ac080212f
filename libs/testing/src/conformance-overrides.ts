// The spec overrides the reference in a few places (see reference/README.md). These edits
// are applied to the loaded document before compiling, so responses are judged by the spec.

type Json = Record<string, unknown>;

const schemaOf = (document: Json, name: string): Json => {
  const schemas = (document.components as Json | undefined)?.schemas as Record<string, Json> | undefined;
  const schema = schemas?.[name];
  if (!schema) throw new Error(`The reference has no schema ${name}; the conformance overrides need updating.`);
  return schema;
};

const addToEnum = (schema: Json, values: string[]): void => {
  const current = (schema.enum as string[] | undefined) ?? [];
  schema.enum = [...current, ...values.filter((value) => !current.includes(value))];
};

const codeSchema = (errorSchema: Json): Json => (errorSchema.properties as Record<string, Json>).code as Json;

/** gridApiMultiplier → serviceApiMultiplier, in property names and `required` lists alike. */
const renameGridApiMembers = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(renameGridApiMembers);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key.startsWith('gridApi') ? `serviceApi${key.slice('gridApi'.length)}` : key,
      key === 'required' && Array.isArray(value)
        ? value.map((item) => (typeof item === 'string' ? item.replace(/^gridApi/, 'serviceApi') : item))
        : renameGridApiMembers(value),
    ]),
  );
};

/** Names of every component schema used as a response body for the given HTTP status. */
const responseSchemaNames = (document: Json, status: string): Set<string> => {
  const names = new Set<string>();
  for (const item of Object.values(document.paths as Record<string, Json>)) {
    for (const operation of Object.values(item)) {
      const response = ((operation as Json)?.responses as Record<string, Json> | undefined)?.[status];
      const content = response?.content as Record<string, { schema?: { $ref?: string } }> | undefined;
      const ref = content?.['application/json']?.schema?.$ref;
      if (ref?.startsWith('#/components/schemas/')) names.add(ref.slice('#/components/schemas/'.length));
    }
  }
  return names;
};

export const applySpecOverrides = (loaded: Json): Json => {
  const document = renameGridApiMembers(loaded) as Json;
  addToEnum(schemaOf(document, 'CardState'), ['PENDING_ISSUE']);
  Object.assign(schemaOf(document, 'UsdAccountInfoBase').properties as Json, {
    bankAccountType: { type: 'string', enum: ['CHECKING', 'SAVINGS'] },
    bankName: { type: 'string' },
  });
  addToEnum(codeSchema(schemaOf(document, 'Error400')), ['CARDHOLDER_KYC_NOT_APPROVED', 'FUNDING_SOURCE_INELIGIBLE']);
  // Card authorization declines. The reference's simulator declares only 200 CardTransaction and
  // 400 Error400 (no decline response of its own), and its docs name the decline reasons
  // INSUFFICIENT_FUNDS and CARD_PAUSED without putting them in any enum; a decline moves no money
  // and records no transaction, so it is a 400 with that reason as its code.
  addToEnum(codeSchema(schemaOf(document, 'Error400')), ['INSUFFICIENT_FUNDS', 'CARD_PAUSED']);
  addToEnum(codeSchema(schemaOf(document, 'Error409')), ['INVALID_STATE_TRANSITION', 'CARD_ALREADY_CLOSED', 'CARD_NOT_MUTABLE']);
  // Bad input is INVALID_INPUT on every operation, and unknown routes answer REFERENCE_NOT_FOUND.
  for (const name of responseSchemaNames(document, '400')) addToEnum(codeSchema(schemaOf(document, name)), ['INVALID_INPUT']);
  for (const name of responseSchemaNames(document, '404')) {
    addToEnum(codeSchema(schemaOf(document, name)), ['REFERENCE_NOT_FOUND']);
  }
  // Corridor departures for Embedded Wallet safety (decisions 0020, 0021): POST /cards and both
  // transfer-out routes commit wallet money only with the signed retry PATCH /cards/{id} has (its
  // 202 challenge), and a platform names the OIDC audiences (its OAuth client ids) OAUTH accepts.
  for (const path of ['/cards', '/transfer-out', '/agents/me/transfer-out']) {
    const responses = (((document.paths as Json)[path] as Json).post as Json).responses as Json;
    responses['202'] = {
      description: 'The wallet’s signed retry',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SignedRequestChallenge' } } },
    };
  }
  Object.assign(schemaOf(document, 'EmbeddedWalletConfig').properties as Json, {
    oidcAudiences: { type: 'array', items: { type: 'string' } },
  });
  Object.assign(schemaOf(document, 'PlatformConfig').properties as Json, {
    platformId: { type: 'string' },
    environment: { type: 'string', enum: ['SANDBOX', 'PRODUCTION'] },
    webhookPublicKey: { type: 'string' },
  });
  return document;
};
