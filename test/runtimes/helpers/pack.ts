// Installs the package as a user would get it: `npm pack` (so "files" decides what ships), then the
// tarball unpacked into <dir>/node_modules/polar-guard, so scripts in <dir> import it by name.
import { execFileSync } from "node:child_process";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { REPO, artefactDir, requireDist } from "./paths.js";

export interface PackedPackage {
  /** The folder whose node_modules holds polar-guard; put scripts here. */
  root: string;
  /** The unpacked package folder. */
  pkg: string;
  /** Paths inside the tarball, relative to the package root. */
  files: string[];
}

export async function installPacked(name: string): Promise<PackedPackage> {
  requireDist();
  const root = await artefactDir(name);
  await rm(join(root, "node_modules"), { recursive: true, force: true });
  const tarballs = join(root, "tarball");
  await rm(tarballs, { recursive: true, force: true });
  await mkdir(tarballs, { recursive: true });
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tarballs], {
    cwd: REPO,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const info = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  const tarball = join(tarballs, (await readdir(tarballs))[0]);
  const pkg = join(root, "node_modules", "polar-guard");
  await mkdir(pkg, { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", pkg, "--strip-components=1"]);
  return { root, pkg, files: info[0].files.map((f) => f.path).sort() };
}
