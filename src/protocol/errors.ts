/** Every error code of the API with its HTTP status (docs/api.md, Error codes). One table for both sides. */
export const ERROR_STATUS = {
  validation_failed: 400,
  idempotency_key_missing: 400,
  malformed_request: 400,
  unauthorized: 401,
  branch_forbidden: 403,
  scope_missing: 403,
  not_found: 404,
  product_not_found: 404,
  account_not_found: 404,
  shift_not_found: 404,
  printer_not_found: 404,
  invoice_not_found: 404,
  branch_not_found: 404,
  rollout_not_found: 404,
  webhook_not_found: 404,
  account_not_open: 409,
  table_occupied: 409,
  shift_already_open: 409,
  shift_not_open: 409,
  open_accounts_remaining: 409,
  printed_accounts_unpaid: 409,
  products_not_in_catalogue: 409,
  shift_opened_same_second: 409,
  clock_behind_last_close: 409,
  idempotency_in_progress: 409,
  rollout_conflict: 409,
  company_not_found: 422,
  release_not_found: 422,
  group_not_found: 422,
  user_not_found: 422,
  payment_method_not_found: 422,
  discount_type_not_found: 422,
  line_not_found: 422,
  product_blocked: 422,
  discount_type_required: 422,
  discount_exceeds_maximum: 422,
  discount_exceeds_base: 422,
  reason_required: 422,
  shift_mismatch: 422,
  fixed_cash_float: 422,
  series_not_found: 422,
  station_not_found: 422,
  waiter_not_found: 422,
  payment_insufficient: 422,
  overpayment: 422,
  value_out_of_range: 422,
  motive_not_found: 422,
  idempotency_key_reused: 422,
  webhook_url_refused: 422,
  printer_not_thermal: 422,
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  header_fields_too_large: 431,
  internal_error: 500,
  printer_failed: 502,
  agent_bad_result: 502,
  agent_offline: 503,
  pos_unavailable: 503,
  pos_busy: 503,
  store_unavailable: 503,
  gateway_stopping: 503,
  agent_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLES: Record<ErrorCode, string> = Object.fromEntries(
  Object.keys(ERROR_STATUS).map((code) => [code, code.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase())]),
) as Record<ErrorCode, string>;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/**
 * A business rule said no. Thrown by operations inside their transaction (which then rolls
 * back) and carried to the client as a problem with this code.
 */
export class PosError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'PosError';
  }
}
