// The files the tools read that the repository keeps elsewhere (the setup page, its
// manifest and status fields, the ABI constants, the build key's public half): `npm run
// build:host` copies them into host/tools/assets/ under their repository paths, so the
// tools find them in the same place from src/ and dist/, in the checkout and when installed.
import { fileURLToPath } from "node:url";

/** The folder that stands in for the repository root; `asset("boards/page/index.html")`. */
export const ASSETS_ROOT = fileURLToPath(new URL("../assets/", import.meta.url));

/** The copy of a repository file the tools package carries. */
export const asset = (repositoryPath: string): string => ASSETS_ROOT + repositoryPath;

/** What build:host copies, from the repository root. */
export const ASSET_SOURCES = ["boards/page", "boards/keys/build-key.pub", "assembly/constants.json"] as const;
