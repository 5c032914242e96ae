/** An error a client gets in ThingsBoard's shape: {status, message, errorCode, timestamp}. */
export class PlatformError extends Error {
  readonly status: number;
  readonly errorCode: number;
  readonly headers: Record<string, string>;
  constructor(status: number, errorCode: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
    this.headers = headers;
  }
}

export const ErrorCode = {
  GENERAL: 2,
  AUTHENTICATION: 10,
  JWT_TOKEN_EXPIRED: 11,
  CREDENTIALS_EXPIRED: 15,
  PERMISSION_DENIED: 20,
  INVALID_ARGUMENTS: 30,
  BAD_REQUEST_PARAMS: 31,
  ITEM_NOT_FOUND: 32,
  TOO_MANY_REQUESTS: 33,
  VERSION_CONFLICT: 35,
} as const;

export const invalidArgument = (message: string) =>
  new PlatformError(400, ErrorCode.INVALID_ARGUMENTS, message);
export const badRequestParams = (message: string) =>
  new PlatformError(400, ErrorCode.BAD_REQUEST_PARAMS, message);
export const notFound = (message = "Requested item wasn't found!") =>
  new PlatformError(404, ErrorCode.ITEM_NOT_FOUND, message);
export const forbidden = (message = "You don't have permission to perform this operation!") =>
  new PlatformError(403, ErrorCode.PERMISSION_DENIED, message);
export const unauthorized = (message = 'Authentication failed') =>
  new PlatformError(401, ErrorCode.AUTHENTICATION, message);

export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/.test(err.message);
}
