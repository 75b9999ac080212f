export * from './decider-spec';
export * from './clock';
export * from './infra';
export * from './conformance';
export * from './ledger-conservation';
export * from './service-calls';
export * from './projection-rows-contract';
export * from './smtp';
