import * as fs from 'fs'
import * as path from 'path'

/** A local network's state on disk, JSON with bigints kept exact, replaced atomically: docs/bridge/README.md#local-chains-npm-start */

const BIGINT = '$bigint'

/** Writes a temporary file beside `file` and renames it over: a crash leaves the old content or the new one, never half of one. */
export function writeFileAtomic(file: string, text: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(tmp, text)
    fs.renameSync(tmp, file)
}

export function writeStateFile(file: string, state: unknown): void {
    writeFileAtomic(file, JSON.stringify(state, (_, v) => (typeof v === 'bigint' ? { [BIGINT]: v.toString() } : v)) + '\n')
}

/** The state writeStateFile wrote, or undefined when there is none yet. */
export function readStateFile<T>(file: string): T | undefined {
    if (!fs.existsSync(file)) return undefined
    try {
        return JSON.parse(fs.readFileSync(file, 'utf8'), (_, v) => (v !== null && typeof v === 'object' && typeof v[BIGINT] === 'string' && Object.keys(v).length === 1 ? BigInt(v[BIGINT]) : v))
    } catch (err) {
        throw new Error(`${file} is not a saved state (${(err as Error).message}): delete it to start that network afresh`, { cause: err })
    }
}
