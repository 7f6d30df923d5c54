// `npm start`: the module built if an input changed, then `tickretry device` from the
// sources, in one process: `npm run build && tsx ... cli.ts device` paid a second npm and a
// second tsx start-up (about 1.5 s of the 2.8 s to the page's URL; npm run bench:start).
import { buildModule } from "./build/module.js";

console.log(buildModule());
// Imported after the build: the library reads the module it just built.
const { runDevice } = await import("../host/tools/src/device/command.js");
process.exitCode = await runDevice(process.argv.slice(2));
