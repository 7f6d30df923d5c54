// classifyHttp: one mapping from HTTP status to outcome for firmware and host alike, generated
// from the table in assembly/constants.json (the C view answers the same: the differential
// traces print both for every status of CLASSIFY_STATUSES). The rows below are docs/ABI.md's
// prose, classifyHttp.
import { expect, test } from "vitest";
import { Error as Err, Outcome, classifyHttp } from "../../../host/library/src/generated/abi.js";

test.each([
  [200, 0, Outcome.SUCCESS],
  [204, 1, Outcome.SUCCESS],
  [299, 0, Outcome.SUCCESS],
  [408, 0, Outcome.TRANSIENT],
  [425, 0, Outcome.TRANSIENT],
  [429, 0, Outcome.THROTTLED],
  [429, 1, Outcome.THROTTLED],
  [503, 0, Outcome.TRANSIENT],
  [503, 1, Outcome.THROTTLED],
  [500, 0, Outcome.AMBIGUOUS],
  [502, 0, Outcome.AMBIGUOUS],
  [504, 1, Outcome.AMBIGUOUS],
  [501, 0, Outcome.PERMANENT],
  [505, 0, Outcome.PERMANENT],
  [400, 0, Outcome.PERMANENT],
  [401, 0, Outcome.PERMANENT],
  [403, 0, Outcome.PERMANENT],
  [404, 0, Outcome.PERMANENT],
  [422, 0, Outcome.PERMANENT],
  [301, 0, Outcome.PERMANENT],
  [100, 0, Outcome.PERMANENT],
  [99, 0, Err.BAD_STATUS],
  [600, 0, Err.BAD_STATUS],
  [-200, 0, Err.BAD_STATUS],
])("classifyHttp(%i, retryAfter=%i) is %i", (status, retryAfter, outcome) => {
  expect(classifyHttp(status, retryAfter)).toBe(outcome);
});
