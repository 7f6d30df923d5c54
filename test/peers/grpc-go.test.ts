// grpc-go's retries and retry throttling, from its own end-to-end tests (grpc/grpc-go):
// grpc-go/test/retry_test.go @ 09e6fddb. A stub server answers the i-th call it sees; the retry
// policy is 4 attempts with a 10 ms backoff; retryThrottling {maxTokens 10, tokenRatio 0.5}
// is the budget docs/ABI.md gives for gRPC: every failed attempt takes 1 token, every
// success gives 0.5, a retry needs more than half the maximum. The stub's server is the
// host's here: its answers are reported as outcomes. docs/peers.md, grpc-go.
import { describe, expect, test } from "vitest";
import { EndReason, Outcome, State } from "../../host/library/src/generated/abi.js";
import type { TickRetryApi } from "../../host/library/src/tickretry.js";
import { ticksUntil } from "../../host/library/src/ticks.js";
import { configured, peerPolicy, quota, runOperation } from "./peer-run.js";

const { SUCCESS, TRANSIENT, PERMANENT } = Outcome;
const RETRY_POLICY = peerPolicy({ maxAttempts: 4, baseDelay: 10, maxDelay: 10 }); // full jitter
/** retryThrottling {maxTokens: 10, tokenRatio: 0.5} in milli-tokens. */
const THROTTLING = quota(10, {
  threshold: 5001,
  failureCost: 1000,
  successDeposit: 500,
  refundOnSuccess: false,
});

/** A stub server: its i-th call's answer. */
type Server = (i: number) => number;

/** The server's call count (the source's `i`) and the client's clock, across calls. */
interface Calls {
  i: number;
  now: number;
}

/** One EmptyCall: attempts meet the server's answers until the operation ends. Returns the
 * end reason; `calls.i` is then the source's `count`; the waits go to `waits`. */
function emptyCall(api: TickRetryApi, server: Server, calls: Calls, waits: number[] = []): number {
  const h = api.begin(0, calls.now);
  while (api.poll(calls.now) === h) {
    api.report(h, api.attempt(h), server(++calls.i), 0, calls.now);
    if (api.state(h) !== State.WAITING) break;
    waits.push(ticksUntil(calls.now, api.nextAttemptAt(h)));
    calls.now = api.nextAttemptAt(h);
  }
  const reason = api.endReason(h);
  api.release(h);
  return reason;
}

describe("grpc-go test/retry_test.go", () => {
  test("TestRetryUnary: OK at calls 0, 2, 5; Internal at 6, 8, 11; AlreadyExists after 4 attempts at 15", () => {
    const server: Server = (i) =>
      [0, 2, 5].includes(i) ? SUCCESS : [6, 8, 11].includes(i) ? PERMANENT : TRANSIENT;
    const api = configured(RETRY_POLICY);
    const calls = { i: -1, now: 0 };
    const waits: number[] = [];
    const seen = Array.from({ length: 7 }, () => [emptyCall(api, server, calls, waits), calls.i]);
    const { SUCCEEDED, PERMANENT: INTERNAL, EXHAUSTED } = EndReason;
    expect(seen).toEqual([
      [SUCCEEDED, 0],
      [SUCCEEDED, 2],
      [SUCCEEDED, 5],
      [INTERNAL, 6],
      [INTERNAL, 8],
      [INTERNAL, 11],
      [EXHAUSTED, 15],
    ]);
    expect(waits.every((w) => w >= 0 && w <= 10)).toBe(true);
  });

  test("TestRetryThrottling: maxTokens 10, tokenRatio 0.5; the calls' codes, counts and tokens", () => {
    const ok = [0, 3, 6, 10, 11, 12, 13, 14, 16, 18];
    const server: Server = (i) => (ok.includes(i) ? SUCCESS : TRANSIENT);
    const api = configured(RETRY_POLICY, THROTTLING);
    const calls = { i: -1, now: 0 };
    const seen = Array.from({ length: 12 }, () => [
      emptyCall(api, server, calls),
      calls.i,
      api.tokens() / 1000,
    ]);
    const { SUCCEEDED: OK, BUDGET: UNAVAILABLE } = EndReason;
    // The source's comments give 6 after the third call and 5.5, 4.5 after the last two; its
    // own rule (-1 a failure, +0.5 a success) gives 7, 6 and 5, as here.
    expect(seen).toEqual([
      [OK, 0, 10],
      [OK, 3, 8.5],
      [OK, 6, 7],
      [UNAVAILABLE, 8, 5], // the first attempt retried, the second aborted
      [UNAVAILABLE, 9, 4],
      [OK, 10, 4.5],
      [OK, 11, 5],
      [OK, 12, 5.5],
      [OK, 13, 6],
      [OK, 14, 6.5],
      [OK, 16, 6],
      [UNAVAILABLE, 17, 5],
    ]);
  });

  test("TestRetryStreaming, Non-retryable error code: Internal ends after one attempt", () => {
    const run = runOperation(configured(RETRY_POLICY), [PERMANENT, SUCCESS]);
    expect([run.attempts, run.endReason]).toEqual([1, EndReason.PERMANENT]);
  });

  test("TestRetryStreaming, Exceed max attempts (4): four Unavailable", () => {
    const run = runOperation(configured(RETRY_POLICY), Array(5).fill(TRANSIENT));
    expect([run.attempts, run.endReason]).toEqual([4, EndReason.EXHAUSTED]);
  });

  test("TestRetryStreaming, 1s server pushback - delayed retry: clamped to the 10 ms backoff cap unless maxRetryAfter allows it (documented)", () => {
    // grpc-retry-pushback-ms replaces gRPC's backoff outright; the module bounds it by
    // maxRetryAfter, 0 meaning maxDelay (here 10 ms).
    expect(runOperation(configured(RETRY_POLICY), [TRANSIENT, SUCCESS], 0, 1000).waits).toEqual([10]);
    const loose = configured(
      peerPolicy({ maxAttempts: 4, baseDelay: 10, maxDelay: 10, maxRetryAfter: 60_000 }),
    );
    const run = runOperation(loose, [TRANSIENT, SUCCESS], 0, 1000);
    expect([run.waits, run.endReason]).toEqual([[1000], EndReason.SUCCEEDED]);
  });
});
