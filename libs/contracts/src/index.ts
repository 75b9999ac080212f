export * from './messages';
export * from './errors';
export * from './ids';
export * from './money';
export * from './subjects';
export * from './pagination';
export * from './requests';
