import * as fs from 'fs'
import * as path from 'path'
import { CompilePool } from './compile-pool'

/** A solc build the verifier can compile with. */
export interface Compiler {
    /** as Blockscout and Etherscan name it: `v0.8.30+commit.73712a01` */
    version: string
    soljson: string
}

/** The official builds' file names (binaries.soliditylang.org/bin): soljson-v0.8.26+commit.8a97fa7a.js. */
const SOLJSON_FILE = /^soljson-(v\d+\.\d+\.\d+\+commit\.[0-9a-f]{8})\.js$/

/** `0.8.30+commit.73712a01.Emscripten.clang` (what solc-js reports) → `v0.8.30+commit.73712a01`. */
function canonical(version: string): string {
    const bare = version.trim().replace(/^v/, '').replace(/\.Emscripten\.clang$/, '')
    return `v${bare}`
}

/**
 * The installed compilers: the solc-js build this project depends on, and any official soljson
 * builds an operator puts in VERIFIER_SOLC_DIR (docs/contract-verification.md). Nothing is
 * downloaded: a version not installed is refused.
 */
export class Compilers {
    private listed?: Promise<Compiler[]>

    constructor(private readonly pool: CompilePool, private readonly dir?: string) {}

    /** Every installed compiler, the newest first. */
    list(): Promise<Compiler[]> {
        this.listed ??= this.discover().catch((err) => {
            this.listed = undefined
            throw err
        })
        return this.listed
    }

    /** The compiler of a requested version (`v0.8.30+commit.73712a01`, `0.8.30+commit.73712a01` or `0.8.30`), if installed. */
    async find(requested: string): Promise<Compiler | undefined> {
        const wanted = canonical(requested)
        const all = await this.list()
        return all.find((c) => c.version === wanted) ?? (/^v\d+\.\d+\.\d+$/.test(wanted) ? all.find((c) => c.version.startsWith(`${wanted}+`)) : undefined)
    }

    private async discover(): Promise<Compiler[]> {
        const bundled = require.resolve('solc/soljson.js')
        const found: Compiler[] = [{ version: canonical(await this.pool.version(bundled)), soljson: bundled }]
        if (this.dir) {
            for (const file of fs.readdirSync(this.dir)) {
                const m = SOLJSON_FILE.exec(file)
                if (m && !found.some((c) => c.version === m[1])) found.push({ version: m[1], soljson: path.resolve(this.dir, file) })
            }
        }
        return found.sort((a, b) => compareVersions(b.version, a.version))
    }
}

function compareVersions(a: string, b: string): number {
    const parts = (v: string) => v.slice(1).split('+')[0].split('.').map(Number)
    const [x, y] = [parts(a), parts(b)]
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i]
    return 0
}
