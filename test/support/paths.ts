import * as fs from 'fs'
import * as path from 'path'

/**
 * The repository root: the nearest ancestor of this file holding package.json and tsconfig.json
 * (lib/ holds a copy of package.json, which code imports, and no tsconfig.json). Tests run both
 * from the sources (test/..., the unit suite under tsx) and from the build (lib/test/...), so a
 * path counted in `../` from __dirname is right in only one of them.
 */
export const REPO_ROOT = ((): string => {
    for (let dir = __dirname; ; dir = path.dirname(dir)) {
        if (['package.json', 'tsconfig.json'].every((file) => fs.existsSync(path.join(dir, file)))) return dir
        if (path.dirname(dir) === dir) throw new Error(`no package.json with a tsconfig.json above ${__dirname}`)
    }
})()

/** A path inside the repository, e.g. repoPath('contracts', 'amm', 'AmmRouter.sol'). */
export function repoPath(...parts: string[]): string {
    return path.join(REPO_ROOT, ...parts)
}
