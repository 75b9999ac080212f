import type { FairGateOptions } from './fair-gate';
import type { TokenLimits } from './issue-token';

/** What the tokens module takes from the service's configuration. */
export type TokenOptions = TokenLimits & { verifyGate: FairGateOptions };
export const TOKEN_OPTIONS = 'TOKEN_OPTIONS';
