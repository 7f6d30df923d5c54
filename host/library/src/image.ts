// Moving an image in and out of a module instance: save writes it into the image area
// of the instance's linear memory and restore reads it from there (docs/ABI.md, Saving
// and restoring); these copy the bytes across, so a host keeps the image as a Uint8Array.
import { Image } from "./generated/abi.js";
import type { TickRetryApi } from "./tickretry.js";

/**
 * save(now) and a copy of the image it wrote, or save's negative error code (NOT_INITIALIZED).
 * @example
 * ```ts
 * import { Result, create, instantiate, restoreImage, saveImage } from "tickretry";
 *
 * const api = create(1n);
 * const image = saveImage(api, 1000);
 * if (typeof image === "number") throw new Error(`save refused: ${image}`);
 * const after = instantiate(); // a fresh instance: no init before a restore
 * console.log(restoreImage(after, image, 5000, 4000) === Result.OK); // 4000 ticks asleep
 * ```
 */
export function saveImage(api: TickRetryApi, now: number): Uint8Array | number {
  const length = api.save(now);
  if (length < 0) return length;
  return new Uint8Array(api.memory.buffer, api.imageAddress(), length).slice();
}

/**
 * Copies `bytes` into the image area and calls restore; OK or restore's error code. An
 * image longer than the area is not copied: restore refuses its length (IMAGE_LENGTH).
 * `elapsed` (default 0: unknown) is the ticks known to have passed since the save, a deep
 * sleep's length; `flags` (default 0) may be RestoreFlag.ATTEMPTS_LOST after a reboot.
 * @example
 * ```ts
 * import { RestoreFlag, create, instantiate, restoreImage, saveImage } from "tickretry";
 *
 * const image = saveImage(create(2n), 0) as Uint8Array;
 * console.log(restoreImage(instantiate(), image, 100, 0, RestoreFlag.ATTEMPTS_LOST)); // 0, OK
 * console.log(restoreImage(instantiate(), image.subarray(1), 100)); // an error code, < 0
 * ```
 */
export function restoreImage(
  api: TickRetryApi,
  bytes: Uint8Array,
  now: number,
  elapsed = 0,
  flags = 0,
): number {
  if (bytes.length <= Image.AREA_BYTES) {
    new Uint8Array(api.memory.buffer, api.imageAddress(), bytes.length).set(bytes);
  }
  return api.restore(bytes.length, now, elapsed, flags);
}
