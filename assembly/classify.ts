// HTTP status to outcome, in the module so that firmware and host classify alike.
import {
  ERROR_BAD_STATUS,
  OUTCOME_AMBIGUOUS,
  OUTCOME_PERMANENT,
  OUTCOME_SUCCESS,
  OUTCOME_THROTTLED,
  OUTCOME_TRANSIENT,
} from "./generated/constants";

/** The outcome of an HTTP answer; hasRetryAfter is non-zero when it carried Retry-After. */
export function classifyHttp(status: u32, hasRetryAfter: u32): i32 {
  if (status - 100 > 499) return ERROR_BAD_STATUS; // below 100 or above 599
  if (status - 200 < 100) return OUTCOME_SUCCESS;
  // 429 asks to slow down; 503 is refused before processing, and with Retry-After the
  // server says when to return.
  if (status == 429 || (status == 503 && hasRetryAfter)) return OUTCOME_THROTTLED;
  // 408 and 425: the server did not process the request.
  if (status == 408 || status == 425 || status == 503) return OUTCOME_TRANSIENT;
  // 501 and 505 cannot succeed as sent; other 5xx (500, 502, 504 ...) may have executed.
  // 1xx as a final answer, unfollowed 3xx redirects, and the other 4xx will not change.
  return status < 500 || ((status - 501) & ~4) == 0 ? OUTCOME_PERMANENT : OUTCOME_AMBIGUOUS;
}
