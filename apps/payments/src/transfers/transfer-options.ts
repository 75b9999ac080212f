/** How the sandbox rail paces transfers: how long a 005 transfer stays pending, how often due transfers are looked at. */
export type TransferOptions = { pendingSeconds: number; sweepSeconds: number };
export const TRANSFER_OPTIONS = 'TRANSFER_OPTIONS';
