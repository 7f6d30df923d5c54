// The package's public API (package.json "exports"): the typed wrapper, images in and out
// of an instance (save and restore), the constants, tick arithmetic, the simulated clock,
// scripted faults, the main loop, the virtual-time driver and the policy helpers. Re-exports only; each
// name is documented where it is defined.
export * from "./generated/abi.js";
export * from "./tickretry.js";
export * from "./image.js";
export * from "./ticks.js";
export * from "./clock.js";
export * from "./faults.js";
export * from "./loop.js";
export * from "./driver.js";
export * from "./policy.js";
export * from "./names.js";
