// HTTP status to outcome, in the module so that firmware and host classify alike.
import {
  ERROR_BAD_STATUS,
  OUTCOME_AMBIGUOUS,
  OUTCOME_PERMANENT,
  OUTCOME_SUCCESS,
  OUTCOME_THROTTLED,
  OUTCOME_TRANSIENT,
} from "./constants";

/** The outcome of an HTTP answer; hasRetryAfter is non-zero when it carried Retry-After. */
export function classifyHttp(status: u32, hasRetryAfter: u32): i32 {
  if (status < 100 || status > 599) return ERROR_BAD_STATUS;
  if (status >= 200 && status < 300) return OUTCOME_SUCCESS;
  // 408 and 425: the server did not process the request; 429 asks to slow down.
  if (status == 408 || status == 425) return OUTCOME_TRANSIENT;
  if (status == 429) return OUTCOME_THROTTLED;
  // 503 is refused before processing; with Retry-After the server says when to return.
  if (status == 503) return hasRetryAfter ? OUTCOME_THROTTLED : OUTCOME_TRANSIENT;
  // 501 and 505 cannot succeed as sent; other 5xx (500, 502, 504 ...) may have executed.
  if (status == 501 || status == 505) return OUTCOME_PERMANENT;
  if (status >= 500) return OUTCOME_AMBIGUOUS;
  // 1xx as a final answer, unfollowed 3xx redirects, and the other 4xx will not change.
  return OUTCOME_PERMANENT;
}
