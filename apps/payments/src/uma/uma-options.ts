/** Settings of the UMA slice (lookups, invitations), from PaymentsServiceConfig. */
export type UmaOptions = { lookupTtlSeconds: number; invitationTtlSeconds: number; invitationUrlBase: string };
export const UMA_OPTIONS = 'UMA_OPTIONS';
