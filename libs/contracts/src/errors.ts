// Errors cross the NATS hop as plain data ({code, status, message, details}); classes do not,
// so every error a client can see carries a stable SCREAMING_SNAKE code and a category.

export type ErrorCategory =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'failed_dependency'
  | 'unavailable'
  | 'internal';

/** The one category → HTTP status table. */
export const statusOfCategory: Readonly<Record<ErrorCategory, number>> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  failed_dependency: 424,
  unavailable: 503,
  internal: 500,
};

export type ErrorBody = {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
};

export class DomainError extends Error {
  readonly status: number;

  constructor(
    readonly code: string,
    readonly category: ErrorCategory,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = statusOfCategory[category];
  }

  toBody(): ErrorBody {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
    };
  }

  static fromBody(body: ErrorBody): DomainError {
    const category =
      (Object.entries(statusOfCategory).find(([, status]) => status === body.status)?.[0] as ErrorCategory | undefined) ?? 'internal';
    return new DomainError(body.code, category, body.message, body.details);
  }
}

export const isErrorBody = (value: unknown): value is ErrorBody =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ErrorBody).code === 'string' &&
  typeof (value as ErrorBody).status === 'number' &&
  typeof (value as ErrorBody).message === 'string';

export const invalidInput = (message: string, details?: Record<string, unknown>) =>
  new DomainError('INVALID_INPUT', 'validation', message, details);
